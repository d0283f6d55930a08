/* a toy file: a table, a macro, an object, functions */
#include <stdint.h>
#define SHIFT 7
#define MUL(a, b) \
	(((a) * (b)) >> SHIFT)

static const unsigned char factor[2][4] = {
	{ 64, 32, 8, 0 },
	{ 96, 72, 40, 12 },
};
static unsigned long counter = 1UL;

struct pair { int a; int b; };

static inline unsigned long step(unsigned long v, int idx)
{
	const char *s = "not a } brace";
	char c = '}';
	// a comment with a brace {
	if (idx > 0 && v != 0x3fUL)
		v = MUL(v, factor[idx & 1][0]);
	return v + (s[0] == c) + 1e3;
}
