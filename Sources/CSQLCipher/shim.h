/* SQLCipher declares sqlite3_key/sqlite3_rekey only with SQLITE_HAS_CODEC. */
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>
