// The oracle's extraction layer: tokenizer, diff parsing and image
// reconstruction, definition extraction, type rewriting.
//
// The C snippets and diffs below are toy code written for these tests.  The
// seed-000 checks read the mailing-list thread at run time and assert only
// names, counts and line numbers taken from its hunk headers; no kernel
// text is kept here.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "oracle/extract.h"
#include "oracle/patch.h"
#include "oracle/rewrite.h"
#include "oracle/tokens.h"

#ifndef SCHEDCHECK_SOURCE_DIR
#define SCHEDCHECK_SOURCE_DIR "."
#endif

using namespace sc::oracle;
using Catch::Matchers::Contains;

namespace {

std::vector<std::string> texts(const std::vector<Token> &t) {
    std::vector<std::string> out;
    for (const auto &x : t)
        out.push_back(x.text);
    return out;
}

bool has_ident(const std::string &code, const std::string &name) {
    for (const auto &t : tokenize(code))
        if (t.is_ident(name))
            return true;
    return false;
}

// Parameters of the first function-like group after `name` in `code`.
int param_count(const std::string &code, const std::string &name) {
    auto t = tokenize(code);
    for (std::size_t i = 0; i + 1 < t.size(); ++i) {
        if (!t[i].is_ident(name) || !t[i + 1].is("("))
            continue;
        int depth = 0, commas = 0;
        for (std::size_t j = i + 1; j < t.size(); ++j) {
            if (t[j].is("("))
                ++depth;
            else if (t[j].is(")") && --depth == 0)
                return t[j - 1].is("(") ? 0 : commas + 1;
            else if (t[j].is(",") && depth == 1)
                ++commas;
        }
    }
    return -1;
}

// A hand-written two-patch mbox on a toy file, plus a quoted copy in a
// reply and an identical resend of the first patch.
const char *toy_mbox = R"(From 0123456789abcdef Mon Sep 17 00:00:00 2001
From: A Tester <tester@example.org>
Subject: [PATCH 1/2] toy: scale the bump

Use the step size.
---
 toy/counter.c | 5 +++--

diff --git a/toy/counter.c b/toy/counter.c
index 1111111..2222222 100644
--- a/toy/counter.c
+++ b/toy/counter.c
@@ -20,6 +20,7 @@ int toy_init(void)
 
 static int bump(int v, int by)
 {
-	return v + by;
+	int scaled = by * STEP;
+	return v + scaled;
 }

@@ -40,4 +41,4 @@ static int bump(int v, int by)
 int toy_limit(void)
 {
-	return 10;
+	return 12;
 }
-- 
2.39.2

From 89abcdef01234567 Mon Sep 17 00:00:00 2001
From: A Tester <tester@example.org>
Subject: [PATCH 2/2] toy: clamp the
 scaled bump

---
diff --git a/toy/counter.c b/toy/counter.c
--- a/toy/counter.c
+++ b/toy/counter.c
@@ -22,5 +22,7 @@ static int bump(int v, int by)
 {
 	int scaled = by * STEP;
-	return v + scaled;
+	if (scaled > 100)
+		scaled = 100;
+	return v + scaled;
 }
 
@@ -51,3 +53,4 @@ int toy_limit(void)
 static int toy_flag;
+static int toy_mode;
 
 int toy_last(void)
-- 
2.39.2

Re: [PATCH 1/2] toy: scale the bump

> diff --git a/toy/counter.c b/toy/counter.c
> --- a/toy/counter.c
> +++ b/toy/counter.c
> @@ -20,6 +20,7 @@ int toy_init(void)
>  
>  static int bump(int v, int by)
>  {
> -	return v + by;
> +	int scaled = by * STEP;

Looks fine.

Subject: [PATCH 1/2 RESEND] toy: scale the bump

diff --git a/toy/counter.c b/toy/counter.c
--- a/toy/counter.c
+++ b/toy/counter.c
@@ -20,6 +20,7 @@ int toy_init(void)
 
 static int bump(int v, int by)
 {
-	return v + by;
+	int scaled = by * STEP;
+	return v + scaled;
 }

@@ -40,4 +41,4 @@ static int bump(int v, int by)
 int toy_limit(void)
 {
-	return 10;
+	return 12;
 }
)";

std::string seed_000() {
    namespace fs = std::filesystem;
    fs::path dir = fs::path(SCHEDCHECK_SOURCE_DIR) / ".." / "shared" / "seeds";
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return {};
    for (const auto &e : fs::directory_iterator(dir, ec))
        if (e.path().filename().string().rfind("000_", 0) == 0 && e.path().extension() == ".txt") {
            std::ifstream in(e.path());
            std::stringstream ss;
            ss << in.rdbuf();
            return ss.str();
        }
    return {};
}

} // namespace

// ------------------------------------------------------------ tokenizer

TEST_CASE("tokens: kinds, spellings and multi-character punctuators", "[oracle][tokens]") {
    auto t = tokenize("p->n <<= 0x1fUL; k++ && --j != 3u; f(a, ...);");
    CHECK(texts(t) == std::vector<std::string>{"p", "->", "n", "<<=", "0x1fUL", ";", "k", "++", "&&", "--", "j",
                                               "!=", "3u", ";", "f", "(", "a", ",", "...", ")", ";"});
    CHECK(t[0].kind == TokKind::identifier);
    CHECK(t[1].kind == TokKind::punct);
    CHECK(t[4].kind == TokKind::number);
    CHECK(t[12].kind == TokKind::number);
}

TEST_CASE("tokens: literals, comments and line numbers", "[oracle][tokens]") {
    const std::string src = "int a = 1; /* x { y\n z */ char *s = \"q/*r*/\\\"\";\n"
                            "char c = '\\''; // tail }\nlong e = 1.5e-3;\n";
    auto t = tokenize(src);
    auto v = texts(t);
    CHECK(v == std::vector<std::string>{"int", "a", "=", "1", ";", "char", "*", "s", "=", "\"q/*r*/\\\"\"", ";",
                                        "char", "c", "=", "'\\''", ";", "long", "e", "=", "1.5e-3", ";"});
    CHECK(t[5].line == 2);  // after the two-line comment
    CHECK(t[5].space_before);
    CHECK(t[5].newline_before);
    CHECK(t[9].kind == TokKind::string);
    CHECK(t[14].kind == TokKind::character);
    CHECK(t[16].line == 4);
    CHECK_FALSE(t[1].newline_before);
    // Byte ranges give back the exact spelling.
    for (const auto &x : t)
        CHECK(src.substr(x.offset, x.end - x.offset) == x.text);
}

TEST_CASE("tokens: a directive is one token, continuations included", "[oracle][tokens]") {
    const std::string src = "#define SUM(a, b) \\\n\t((a) + \\\n\t (b))\nint x;\n  # if FOO /* c\n */\nint y;\n";
    auto t = tokenize(src);
    REQUIRE(t.size() == 8);
    CHECK(t[0].kind == TokKind::directive);
    CHECK(t[0].text == "#define SUM(a, b) \\\n\t((a) + \\\n\t (b))");
    CHECK(t[1].is_ident("int"));
    CHECK(t[1].line == 4);
    CHECK(t[4].kind == TokKind::directive);
    CHECK(t[4].line == 5);
    CHECK(t[5].line == 7);
    auto parts = split_directive(t[0].text);
    CHECK(parts.name == "define");
    CHECK(has_ident(parts.body, "SUM"));
    // '#' in the middle of a line is a punctuator, not a directive.
    auto u = tokenize("a # b ## c");
    CHECK(texts(u) == std::vector<std::string>{"a", "#", "b", "##", "c"});
    CHECK(u[1].kind == TokKind::punct);
}

TEST_CASE("tokens: prose and cut comments do not throw", "[oracle][tokens]") {
    TokenizeOptions o;
    o.starts_in_comment = true;
    o.first_line = 10;
    auto t = tokenize(" * it's the tail of a comment\n */\nint z;\n", o);
    CHECK(texts(t) == std::vector<std::string>{"int", "z", ";"});
    CHECK(t[0].line == 12);
    CHECK(begins_inside_comment(" * tail */ int a; /* more */"));
    CHECK_FALSE(begins_inside_comment("int a; /* c */"));
    auto u = tokenize("don't \"open");
    CHECK(u.size() == 4);
}

TEST_CASE("tokens: emit keeps tokens and line breaks", "[oracle][tokens]") {
    auto t = tokenize("int f(int x)   /* note */\n{\n\treturn x+1;\n}\n");
    std::string e = emit(t);
    CHECK(e == "int f(int x)\n{\nreturn x+1;\n}");
    CHECK(texts(tokenize(e)) == texts(t));
}

// ------------------------------------------------------------ rewriter

TEST_CASE("rewrite: builtin and kernel integer types", "[oracle][rewrite]") {
    CHECK(rewrite_types("unsigned long x = (unsigned)y;") == "sc_ulong x = (sc_uint)y;");
    CHECK(rewrite_types("long a; long int b; signed long c; unsigned long int d;") ==
          "sc_slong a; sc_slong b; sc_slong c; sc_ulong d;");
    CHECK(rewrite_types("unsigned int i; int k; unsigned char c; signed char sc; unsigned short h;") ==
          "sc_uint i; int k; unsigned char c; signed char sc; unsigned short h;");
    CHECK(rewrite_types("u64 a = (u32)b + (s64)c;") == "sc_u64 a = (sc_u32)b + (sc_s64)c;");
    CHECK(rewrite_types("unsigned long long q; long long r;") == "sc_u64 q; sc_s64 r;");
    CHECK(rewrite_types("long double d; signed s;") == "long double d; signed s;");
    CHECK(rewrite_types("v = 1UL << 3; p->u64 = s.u32;") == "v = 1UL << 3; p->u64 = s.u32;");
}

TEST_CASE("rewrite: ints, bools and suffixed literals for fully symbolic code", "[oracle][rewrite]") {
    const RewriteOptions all{true, true};
    CHECK(rewrite_types("static int f(int running, bool sleep) { return running; }", all) ==
          "static sc_sint f(sc_sint running, sc_bool sleep) { return running; }");
    CHECK(rewrite_types("x = (1L << 10) / 100 + 5UL + 7LL + 9ULL + 0x10ul + 3;", all) ==
          "x = (sc_slong(1) << 10) / 100 + sc_ulong(5) + sc_s64(7) + sc_u64(9) + sc_ulong(0x10) + 3;");
    CHECK(rewrite_types("#define SCALE (1L << SHIFT)", all) == "#define SCALE (sc_slong(1) << SHIFT)");
    // Without the options, int, bool and literals stay as they are.
    CHECK(rewrite_types("int a; bool b = 1L;") == "int a; bool b = 1L;");
    // A float stays a float; "unsigned char" stays a byte.
    CHECK(rewrite_types("double d = 1.5; unsigned char c;", all) == "double d = 1.5; unsigned char c;");
}

TEST_CASE("rewrite: comments, strings and spacing are untouched", "[oracle][rewrite]") {
    const std::string src = "/* unsigned long here */ char *s = \"long u64\";\n\tlong   v; // unsigned\n";
    CHECK(rewrite_types(src) == "/* unsigned long here */ char *s = \"long u64\";\n\tsc_slong   v; // unsigned\n");
    CHECK(rewrite_types("unsigned\n\tlong w;") == "sc_ulong w;");
}

TEST_CASE("rewrite: macro bodies are rewritten, other directives are not", "[oracle][rewrite]") {
    CHECK(rewrite_types("#define WIDE(x) ((unsigned long)(x))\n") == "#define WIDE(x) ((sc_ulong)(x))\n");
    CHECK(rewrite_types("#if LONG_MAX > 5 /* long */\nlong a;\n#endif\n") ==
          "#if LONG_MAX > 5 /* long */\nsc_slong a;\n#endif\n");
}

// ------------------------------------------------------------ diff parsing

TEST_CASE("patch: a hand-written mbox parses into its patches", "[oracle][patch]") {
    Series s = parse_series(toy_mbox, "toy.mbox");
    REQUIRE(s.patches.size() == 2); // the quote is ignored, the resend dropped
    CHECK(s.patches[0].title == "[PATCH 1/2] toy: scale the bump");
    CHECK(s.patches[1].title == "[PATCH 2/2] toy: clamp the scaled bump");
    REQUIRE(s.patches[0].files.size() == 1);
    const FileDiff &f = s.patches[0].files[0];
    CHECK(f.path() == "toy/counter.c");
    REQUIRE(f.hunks.size() == 2);
    CHECK(f.hunks[0].old_start == 20);
    CHECK(f.hunks[0].old_count == 6);
    CHECK(f.hunks[0].new_count == 7);
    CHECK(f.hunks[0].old_side().size() == 6); // the last, blank-stripped line counts as context
    CHECK(f.hunks[0].new_side().size() == 7);
    CHECK(f.hunks[1].old_start == 40);
    CHECK(s.patches[1].files[0].hunks.size() == 2);
}

TEST_CASE("patch: a plain diff and defaults of the hunk header", "[oracle][patch]") {
    const char *d = "--- old/x.c\t2024-01-01\n+++ new/x.c\t2024-01-02\n@@ -3 +3 @@\n-a\n+b\n"
                    "\\ No newline at end of file\n";
    Series s = parse_series(d, "x.diff");
    REQUIRE(s.patches.size() == 1);
    CHECK(s.patches[0].title == "patch 1 of x.diff");
    const Hunk &h = s.patches[0].files[0].hunks[0];
    CHECK(s.patches[0].files[0].path() == "x.c");
    CHECK(h.old_count == 1);
    CHECK(h.new_count == 1);
    CHECK(h.lines == std::vector<std::string>{"-a", "+b"});
}

TEST_CASE("patch: text without a diff, or only quoted diffs", "[oracle][patch]") {
    REQUIRE_THROWS_WITH(parse_series("Hello,\n--- not a diff\nthanks\n", "notes.txt"),
                        "no diff found in notes.txt");
    REQUIRE_THROWS_WITH(parse_series("> --- a/x.c\n> +++ b/x.c\n> @@ -1 +1 @@\n> -a\n> +b\n", "reply.txt"),
                        "no diff found in reply.txt");
    REQUIRE_THROWS_AS(parse_series("", "empty"), extract_error);
}

TEST_CASE("patch: malformed patches name origin, line, patch and file", "[oracle][patch]") {
    const std::string head = "Subject: [PATCH] toy: broken\n\ndiff --git a/toy/x.c b/toy/x.c\n"
                             "--- a/toy/x.c\n+++ b/toy/x.c\n";
    // Counts not satisfied before prose.
    REQUIRE_THROWS_WITH(parse_series(head + "@@ -1,3 +1,3 @@\n a\n-b\n+c\nThanks!\n", "bad.mbox"),
                        Contains("bad.mbox:10") && Contains("toy/x.c") && Contains("[PATCH] toy: broken") &&
                            Contains("line counts"));
    // Text ends inside a hunk.
    REQUIRE_THROWS_WITH(parse_series(head + "@@ -1,3 +1,3 @@\n a\n", "cut.mbox"),
                        Contains("cut.mbox") && Contains("cut short"));
    // Unreadable hunk header.
    REQUIRE_THROWS_WITH(parse_series(head + "@@ -x +1 @@\n-a\n+b\n", "hdr.mbox"),
                        Contains("hdr.mbox:6") && Contains("malformed hunk header"));
    // A git header with ---/+++ but no hunk.
    REQUIRE_THROWS_WITH(parse_series(head + "nothing here\n", "nohunk.mbox"),
                        Contains("nohunk.mbox:6") && Contains("hunk header"));
    // More '-' lines than the header says.
    REQUIRE_THROWS_WITH(parse_series(head + "@@ -1,1 +1,2 @@\n-a\n-b\n+c\n", "count.mbox"),
                        Contains("line counts"));
}

// ------------------------------------------------------------ images

TEST_CASE("image: pre-image and post-images of the toy series", "[oracle][patch][image]") {
    Series s = parse_series(toy_mbox, "toy.mbox");

    Image pre = pre_image(s);
    const auto *f = pre.file("toy/counter.c");
    REQUIRE(f != nullptr);
    // Patch 2's first hunk lies in text patch 1 wrote, so it adds nothing;
    // its second hunk (line 51 after patch 1) is base line 50.
    REQUIRE(f->size() == 3);
    CHECK((*f)[0].first_line == 20);
    CHECK((*f)[0].lines.size() == 6);
    CHECK((*f)[0].lines[3] == "\treturn v + by;");
    CHECK((*f)[1].first_line == 40);
    CHECK((*f)[1].lines.size() == 4);
    CHECK((*f)[2].first_line == 50);
    CHECK((*f)[2].lines == std::vector<std::string>{"static int toy_flag;", "", "int toy_last(void)"});

    Image p0 = post_image(s, 0);
    CHECK(p0.files.at("toy/counter.c").size() == 3);
    CHECK(p0.files.at("toy/counter.c")[2].lines == (*f)[2].lines);

    Image p1 = post_image(s, 1);
    const auto &g = p1.files.at("toy/counter.c");
    REQUIRE(g.size() == 3);
    CHECK(g[0].first_line == 20);
    CHECK(g[0].lines.size() == 7);
    CHECK(g[1].first_line == 41);
    CHECK(g[1].lines[2] == "\treturn 12;");
    CHECK(g[2].first_line == 51);

    Image p2 = post_image(s, 2);
    const auto &h = p2.files.at("toy/counter.c");
    REQUIRE(h.size() == 3);
    CHECK(h[0].lines.size() == 9);
    CHECK(h[1].first_line == 43);
    CHECK(h[2].first_line == 53);
    CHECK(h[2].lines == std::vector<std::string>{"static int toy_flag;", "static int toy_mode;", "",
                                                 "int toy_last(void)"});

    // The function is whole in every image.
    auto before = find_definition(pre, "toy/counter.c", "bump");
    REQUIRE(before);
    CHECK(before->kind == DefKind::function);
    CHECK(before->text == "static int bump(int v, int by)\n{\n\treturn v + by;\n}\n");
    CHECK(before->first_line == 21);
    auto after = find_definition(p2, "toy/counter.c", "bump");
    REQUIRE(after);
    CHECK(has_ident(after->text, "scaled"));
    CHECK(after->last_line - after->first_line == 6);

    CHECK_THROWS_AS(post_image(s, 3), extract_error);
}

TEST_CASE("image: displaced hunks are found nearby, conflicts are reported", "[oracle][image]") {
    const char *p1 = "Subject: [PATCH 1/2] toy: one\n\n--- a/t.c\n+++ b/t.c\n"
                     "@@ -10,4 +10,4 @@\n alpha\n beta\n-gamma\n+GAMMA\n delta\n";
    // Same text, line numbers off by 3.
    const char *p2_shifted = "Subject: [PATCH 2/2] toy: two\n\n--- a/t.c\n+++ b/t.c\n"
                             "@@ -13,3 +13,3 @@\n beta\n-GAMMA\n+Gamma\n delta\n";
    Series ok = parse_series(std::string(p1) + p2_shifted, "shift.mbox");
    REQUIRE(ok.patches.size() == 2);
    Image img = post_image(ok, 2);
    const auto &fr = img.files.at("t.c");
    REQUIRE(fr.size() == 1);
    CHECK(fr[0].first_line == 10);
    CHECK(fr[0].lines == std::vector<std::string>{"alpha", "beta", "Gamma", "delta"});

    // Old side disagrees with what patch 1 left there.
    const char *p2_conflict = "Subject: [PATCH 2/2] toy: clash\n\n--- a/t.c\n+++ b/t.c\n"
                              "@@ -11,2 +11,2 @@\n beta\n-gamma\n+Gamma\n";
    Series bad = parse_series(std::string(p1) + p2_conflict, "clash.mbox");
    REQUIRE_THROWS_WITH(post_image(bad, 2), Contains("[PATCH 2/2] toy: clash") && Contains("t.c") &&
                                                Contains("@@ -11,2 +11,2 @@"));
    REQUIRE_THROWS_AS(pre_image(bad), extract_error);
}

// ------------------------------------------------------------ extraction

TEST_CASE("extract: functions, tables, objects and macros in a whole file", "[oracle][extract]") {
    const std::string src = "#define LIMIT 8\n"                                  // 1
                            "#define TWICE(x) \\\n\t((x) * 2)\n"                 // 2-3
                            "struct pair { int a; int b; };\n"                   // 4
                            "static int next_id = 3;\n"                          // 5
                            "static const unsigned char steps[2][3] = {\n"       // 6
                            "\t{ 1, 2, 3 }, { 4, 5, 6 } };\n"                    // 7
                            "static int helper(int v);\n"                        // 8
                            "/* braces in a comment: { */\n"                     // 9
                            "static unsigned long\n"                             // 10
                            "twist(unsigned long v, const char *why)\n"          // 11
                            "{\n"                                                // 12
                            "\tif (v > LIMIT) {\n"                               // 13
                            "\t\tv = TWICE(v); /* } */\n"                        // 14
                            "\t}\n"                                              // 15
                            "\treturn why[0] == '}' ? v : v + 1;\n"              // 16
                            "}\n"                                                // 17
                            "int main(void) { return (int)twist(1, \"{\"); }\n"; // 18
    auto defs = definitions(src);
    std::vector<std::string> names;
    for (const auto &d : defs)
        names.push_back(std::string(kind_name(d.kind)) + ":" + d.name + "@" + std::to_string(d.first_line));
    CHECK(names == std::vector<std::string>{"macro:LIMIT@1", "macro:TWICE@2", "object:next_id@5", "table:steps@6",
                                            "function:twist@10", "function:main@18"});
    const Definition *tw = find(defs, "twist", DefKind::function);
    REQUIRE(tw);
    CHECK(tw->last_line == 17);
    CHECK(tw->text.rfind("static unsigned long\ntwist(", 0) == 0);
    const Definition *st = find(defs, "steps");
    REQUIRE(st);
    CHECK(st->last_line == 7);
    CHECK(st->text.back() == '\n');
    CHECK(find(defs, "TWICE")->last_line == 3);
    CHECK(find(defs, "helper") == nullptr); // a declaration, not a definition
    CHECK(find(defs, "twist", DefKind::macro) == nullptr);
}

TEST_CASE("extract: a table with an annotation after its brackets", "[oracle][extract]") {
    auto defs = definitions("static const u32 halves[] __maybe_unused = {\n\t0x80000000, 0x40000000,\n};\n");
    REQUIRE(defs.size() == 1);
    CHECK(defs[0].kind == DefKind::table);
    CHECK(defs[0].name == "halves");
}

TEST_CASE("extract: only definitions wholly inside a fragment", "[oracle][extract]") {
    Fragment f;
    f.first_line = 100;
    f.lines = {" * the end of someone's comment",  // 100
               " */",                              // 101
               "\tint local = 2;",                 // 102: inside a function cut open
               "\treturn local;",                  // 103
               "}",                                // 104
               "",                                 // 105
               "static int whole(void)",           // 106
               "{",                                // 107
               "\treturn 1;",                      // 108
               "}",                                // 109
               "static int cut(int x)",            // 110
               "{",                                // 111
               "\tif (x) {"};                      // 112
    auto defs = definitions(f);
    REQUIRE(defs.size() == 1);
    CHECK(defs[0].name == "whole");
    CHECK(defs[0].first_line == 106);
    CHECK(defs[0].last_line == 109);

    // Starts on the second line of a signature: not returned.
    Fragment g;
    g.first_line = 7;
    g.lines = {"\t\t  int extra)", "{", "\treturn extra;", "}"};
    CHECK(definitions(g).empty());

    // A block inside a function body is not mistaken for a definition.
    Fragment h;
    h.first_line = 1;
    h.lines = {"\tlist_walk(pos, head, node) {", "\t\tcount++;", "\t}", "\twhile (n) {", "\t\tn--;", "\t}"};
    CHECK(definitions(h).empty());
}

// ------------------------------------------------------------ seed 000

TEST_CASE("seed 000: the cpu_load series and the images it implies", "[oracle][seed]") {
    const std::string text = seed_000();
    if (text.empty()) {
        WARN("skipped: no 000_*.txt under " SCHEDCHECK_SOURCE_DIR "/../shared/seeds (the seed is not "
             "part of the repository)");
        return;
    }
    Series s = parse_series(text, "seed 000");
    REQUIRE(s.patches.size() == 5);
    CHECK_THAT(s.patches[0].title, Contains("1/4"));
    CHECK_THAT(s.patches[1].title, Contains("2/4"));
    CHECK_THAT(s.patches[2].title, Contains("3/4"));
    CHECK_THAT(s.patches[3].title, Contains("4/4"));
    CHECK_THAT(s.patches[4].title, Contains("aggravate"));

    const std::string proc = "kernel/sched/proc.c", fair = "kernel/sched/fair.c";
    Image pre = pre_image(s);
    REQUIRE(pre.file(proc));
    // Patch 2's big proc.c hunk is "-398,105": that whole range is known.
    bool covered = false;
    for (const auto &fr : *pre.file(proc))
        covered = covered || (fr.first_line <= 398 && fr.end_line() >= 398 + 105);
    CHECK(covered);
    // Patch 3's "-449" hunk sits below patch 2's hunk, which shrank the file
    // by 105 - 19 lines: in the base tree it is at 449 + 86.
    bool mapped = false;
    for (const auto &fr : *pre.file(proc))
        mapped = mapped || fr.first_line == 449 + (105 - 19);
    CHECK(mapped);

    auto dlm = find_definition(pre, proc, "decay_load_missed", DefKind::function);
    auto ucl = find_definition(pre, proc, "__update_cpu_load", DefKind::function);
    REQUIRE(dlm);
    REQUIRE(ucl);
    CHECK(param_count(dlm->text, "decay_load_missed") == 3);
    CHECK(param_count(ucl->text, "__update_cpu_load") == 3);
    CHECK(find_definition(pre, proc, "degrade_zero_ticks", DefKind::table));
    CHECK(find_definition(pre, proc, "degrade_factor", DefKind::table));
    CHECK(find_definition(pre, proc, "DEGRADE_SHIFT", DefKind::macro));

    auto src_pre = find_definition(pre, fair, "source_load", DefKind::function);
    auto tgt_pre = find_definition(pre, fair, "target_load", DefKind::function);
    REQUIRE(src_pre);
    REQUIRE(tgt_pre);
    CHECK(param_count(src_pre->text, "source_load") == 2);
    CHECK(param_count(tgt_pre->text, "target_load") == 2);
    CHECK_FALSE(has_ident(tgt_pre->text, "imbalance_pct"));

    Image after3 = post_image(s, 3);
    auto ucl3 = find_definition(after3, proc, "__update_cpu_load", DefKind::function);
    REQUIRE(ucl3);
    CHECK(param_count(ucl3->text, "__update_cpu_load") == 2);
    CHECK_FALSE(find_definition(after3, proc, "decay_load_missed"));
    for (const auto &fr : after3.files.at(proc))
        CHECK_FALSE(has_ident(fr.text(), "decay_load_missed"));
    CHECK(find_definition(after3, fair, "source_load"));

    Image after5 = post_image(s, 5);
    auto tgt5 = find_definition(after5, fair, "target_load", DefKind::function);
    REQUIRE(tgt5);
    CHECK(has_ident(tgt5->text, "imbalance_pct"));
    CHECK(param_count(tgt5->text, "target_load") == 2);
    CHECK(find_definition(after5, proc, "__update_cpu_load"));

    const std::string rw = rewrite_types(dlm->text);
    CHECK_THAT(rw, Contains("sc_ulong"));
    CHECK(rw.find("unsigned long") == std::string::npos);
    CHECK_FALSE(has_ident(rw, "long"));
}
