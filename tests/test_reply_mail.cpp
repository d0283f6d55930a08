// review --reply-to: the mail headers of a patch mail and the reply that
// threads under it.
#include <catch2/catch.hpp>

#include "cli/reply_mail.h"
#include "proofs/invariant.h"

using sc::cli::parse_mail_headers;
using sc::cli::reply_mail;

TEST_CASE("reply mail: folded headers, any case, the thread kept", "[reply-mail]") {
    const std::string mail = "From abc Mon Sep 17 00:00:00 2001\r\n"
                             "message-id: <m2@example.org>\r\n"
                             "SUBJECT: [PATCH v2 3/4] sched/pelt: keep\r\n"
                             "  the remainder\r\n"
                             "From: Dev <dev@example.org>\r\n"
                             "To: a@example.org\r\n"
                             "Cc: b@example.org,\r\n"
                             "\tc@example.org\r\n"
                             "Cc: d@example.org\r\n"
                             "References: <m0@example.org>\r\n"
                             " <m1@example.org>\r\n"
                             "\r\n"
                             "Subject: not a header, the body\r\n";
    const auto h = parse_mail_headers(mail, "m.mbox");
    CHECK(h.message_id == "<m2@example.org>");
    CHECK(h.subject == "[PATCH v2 3/4] sched/pelt: keep the remainder");
    CHECK(h.from == "Dev <dev@example.org>");
    CHECK(h.cc == "b@example.org, c@example.org, d@example.org");
    CHECK(h.references == "<m0@example.org> <m1@example.org>");

    const std::string r = reply_mail(h, "line one\nFrom here on\n");
    CHECK(r.rfind("From schedcheck Mon Sep 17 00:00:00 2001\n", 0) == 0);
    CHECK(r.find("\nTo: Dev <dev@example.org>\n") != std::string::npos);
    CHECK(r.find("\nCc: a@example.org, b@example.org, c@example.org, d@example.org\n") != std::string::npos);
    CHECK(r.find("\nSubject: Re: [PATCH v2 3/4] sched/pelt: keep the remainder\n") != std::string::npos);
    CHECK(r.find("\nIn-Reply-To: <m2@example.org>\n") != std::string::npos);
    CHECK(r.find("\nReferences: <m0@example.org> <m1@example.org> <m2@example.org>\n") != std::string::npos);
    // The body follows the first empty line; a "From " line is quoted so
    // that the mbox is not split.
    CHECK(r.find("\n\nline one\n>From here on\n") != std::string::npos);
    // Nothing of the original body is quoted.
    CHECK(r.find("not a header") == std::string::npos);
}

TEST_CASE("reply mail: one Re:, and no References without the original's", "[reply-mail]") {
    const auto h = parse_mail_headers("Subject: RE: [PATCH] x\nMessage-Id: <a@b>\n\n", "m");
    const std::string r = reply_mail(h, "ok\n");
    CHECK(r.find("\nSubject: Re: [PATCH] x\n") != std::string::npos);
    CHECK(r.find("\nReferences: <a@b>\n") != std::string::npos);
    CHECK(r.find("\nTo:") == std::string::npos);
}

TEST_CASE("reply mail: a file that is no mail, or has no Message-ID, is refused", "[reply-mail]") {
    CHECK_THROWS_AS(parse_mail_headers("diff --git a/x b/x\n--- a/x\n+++ b/x\n", "p.diff"), sc::proofs::input_error);
    CHECK_THROWS_WITH(parse_mail_headers("Subject: [PATCH] y\nFrom: z\n\nbody\n", "p.mbox"),
                      Catch::Contains("p.mbox") && Catch::Contains("Message-ID"));
}
