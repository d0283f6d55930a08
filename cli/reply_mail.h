// `review --reply-to MAIL`: the review as a reply to the patch's mail,
// threaded under it, ready for `git send-email` or a bot.
#pragma once
#include <string>

namespace sc::cli {

// The headers of the first message of an mbox (or of a bare mail), folded
// lines joined.  Names are matched without regard to case.
struct MailHeaders {
    std::string message_id, subject, from, to, cc, references;
};
// Throws input_error (exit 2) naming `path` when the text holds no mail
// headers or no Message-ID to reply to.
MailHeaders parse_mail_headers(const std::string &text, const std::string &path);

// The reply: an mbox "From " line, To the author, Cc the original
// recipients, "Re: " subject, In-Reply-To and References that thread it,
// a plain-text body (nothing of the original is quoted).  No From:
// header: git send-email and mailers fill in the sender.
std::string reply_mail(const MailHeaders &orig, const std::string &body);

} // namespace sc::cli
