 comment tail */ int f(void) { return 0; }
#define X 1
