/* CEncoreTypes holds only the public header; SwiftPM wants one source file. */
#include "encore_types.h"
