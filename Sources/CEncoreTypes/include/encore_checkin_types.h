/*
 * Public C types of check-ins (CWA event registration and CrowdNotifier).
 * Copied into include/encore.h by scripts/gen-header.py, in their section.
 */
#ifndef ENCORE_CHECKIN_TYPES_H
#define ENCORE_CHECKIN_TYPES_H

#include "encore_test_types.h"

#endif /* ENCORE_CHECKIN_TYPES_H */
