/* The C tests' one assertion. CHECK counts checks and failures and reports
 * each failure with the library's last error message; check_report() prints
 * the closing line test runners read ("N passed, N failed") and gives the
 * exit status. Included once by each test program. */
#ifndef ENCORE_TEST_CHECK_H
#define ENCORE_TEST_CHECK_H

#include <stdio.h>

#include "encore.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        checks++;                                                                   \
        if (!(cond)) {                                                              \
            failures++;                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, \
                    __LINE__, #cond, encore_last_error_message());                  \
        }                                                                           \
    } while (0)

/* A time the blocking calls computed from `now`: they advance the host's
 * `now` by the seconds the call has taken (a monotonic clock), so under
 * valgrind on a loaded machine it may be a little later than `expected`. */
#define TIME_NEAR(actual, expected) ((actual) >= (expected) && (actual) <= (expected) + 120)

static int check_report(void) {
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures == 0 ? 0 : 1;
}

#endif
