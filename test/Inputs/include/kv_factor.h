// Used by cli/include-define.cu through -I: a factor chosen with -DFACTOR=N.
#ifndef FACTOR
#error "FACTOR is not defined: pass -DFACTOR=N"
#endif
#define TIMES_FACTOR(x) ((x) * FACTOR)
