#include "cli/reply_mail.h"

#include <cctype>
#include <sstream>
#include <vector>

#include "proofs/invariant.h"

namespace sc::cli {

namespace {

std::string lower(std::string s) {
    for (char &c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string trim(const std::string &s) {
    std::size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

} // namespace

MailHeaders parse_mail_headers(const std::string &text, const std::string &path) {
    std::istringstream in(text);
    std::string l;
    // The header block: after an optional mbox "From " line, up to the
    // first empty line.  A line starting with a blank continues the one
    // before it.
    std::vector<std::string> fields;
    bool first = true;
    while (std::getline(in, l)) {
        if (!l.empty() && l.back() == '\r')
            l.pop_back();
        if (first && l.rfind("From ", 0) == 0) {
            first = false;
            continue;
        }
        first = false;
        if (l.empty())
            break;
        if ((l[0] == ' ' || l[0] == '\t') && !fields.empty())
            fields.back() += " " + trim(l);
        else
            fields.push_back(l);
    }
    MailHeaders h;
    bool any = false;
    for (const std::string &f : fields) {
        const std::size_t colon = f.find(':');
        if (colon == std::string::npos || colon == 0)
            continue;
        const std::string name = lower(f.substr(0, colon));
        if (name.find_first_of(" \t") != std::string::npos)
            continue;
        any = true;
        const std::string value = trim(f.substr(colon + 1));
        if (name == "message-id" && h.message_id.empty())
            h.message_id = value;
        else if (name == "subject" && h.subject.empty())
            h.subject = value;
        else if (name == "from" && h.from.empty())
            h.from = value;
        else if (name == "to")
            h.to += (h.to.empty() ? "" : ", ") + value;
        else if (name == "cc")
            h.cc += (h.cc.empty() ? "" : ", ") + value;
        else if (name == "references" && h.references.empty())
            h.references = value;
    }
    if (!any)
        throw sc::proofs::input_error("--reply-to " + path + ": no mail headers at the top of the file (is it a patch mail?)");
    if (h.message_id.empty())
        throw sc::proofs::input_error("--reply-to " + path + ": the mail has no Message-ID header, so a reply cannot be "
                          "threaded under it");
    return h;
}

std::string reply_mail(const MailHeaders &orig, const std::string &body) {
    std::string subject = orig.subject;
    // One "Re: " only, whatever the case of the original's.
    if (lower(subject.substr(0, 3)) == "re:")
        subject = trim(subject.substr(3));
    std::string refs = orig.references.empty() ? orig.message_id : orig.references + " " + orig.message_id;
    std::string cc = orig.to;
    if (!orig.cc.empty())
        cc += (cc.empty() ? "" : ", ") + orig.cc;
    std::string m = "From schedcheck Mon Sep 17 00:00:00 2001\n";
    if (!orig.from.empty())
        m += "To: " + orig.from + "\n";
    if (!cc.empty())
        m += "Cc: " + cc + "\n";
    m += "Subject: Re: " + subject + "\n";
    m += "In-Reply-To: " + orig.message_id + "\n";
    m += "References: " + refs + "\n";
    m += "MIME-Version: 1.0\n";
    m += "Content-Type: text/plain; charset=UTF-8\n";
    m += "Content-Transfer-Encoding: 8bit\n";
    m += "\n";
    // A body line that starts with "From " would split the mbox: quote it
    // the way mbox readers undo.
    std::istringstream in(body);
    std::string l;
    while (std::getline(in, l))
        m += (l.rfind("From ", 0) == 0 ? ">" : "") + l + "\n";
    return m;
}

} // namespace sc::cli
