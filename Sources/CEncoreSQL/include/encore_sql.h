/*
 * SQLCipher, loaded privately.
 *
 * A host process may already have the system SQLite (libsqlite3) in its
 * global symbol scope. libsqlcipher exports the same sqlite3_* names, so
 * linked normally, both SQLCipher's calls into itself and encore's calls
 * into it could bind to the host's SQLite: a crash at best, pages written
 * without encryption at worst. So encore never links SQLCipher. It loads
 * libsqlcipher.so.0 with dlopen(RTLD_LOCAL | RTLD_DEEPBIND) — local, so
 * nothing else in the process binds to it; deep-bound, so SQLCipher's own
 * references resolve inside SQLCipher before the global scope — and calls
 * it only through the function pointers resolved from that handle, each
 * checked (dladdr) to lie inside libsqlcipher. This header therefore
 * declares no sqlite3_* function at all: code that includes it cannot
 * call SQLite any other way.
 *
 * The names mirror SQLite's (sqlite3_step -> enc_sql_step); the constants
 * are SQLite's values (checked against sqlcipher/sqlite3.h when
 * encore_sql.c is compiled).
 */
#ifndef ENCORE_SQL_H
#define ENCORE_SQL_H

#include <stddef.h>
#include <stdint.h>

typedef struct enc_sql_db enc_sql_db;
typedef struct enc_sql_stmt enc_sql_stmt;

/* Result codes (primary; extended codes carry these in their low byte). */
#define ENC_SQL_OK 0
#define ENC_SQL_BUSY 5
#define ENC_SQL_LOCKED 6
#define ENC_SQL_NOMEM 7
#define ENC_SQL_CORRUPT 11
#define ENC_SQL_TOOBIG 18
#define ENC_SQL_CONSTRAINT 19
#define ENC_SQL_MISMATCH 20
#define ENC_SQL_RANGE 25
#define ENC_SQL_NOTADB 26
#define ENC_SQL_ROW 100
#define ENC_SQL_DONE 101

/* Open flags. */
#define ENC_SQL_OPEN_READONLY 0x00000001
#define ENC_SQL_OPEN_READWRITE 0x00000002
#define ENC_SQL_OPEN_CREATE 0x00000004
#define ENC_SQL_OPEN_URI 0x00000040
#define ENC_SQL_OPEN_NOMUTEX 0x00008000

/* Column types. */
#define ENC_SQL_INTEGER 1
#define ENC_SQL_FLOAT 2
#define ENC_SQL_TEXT 3
#define ENC_SQL_BLOB 4
#define ENC_SQL_NULL 5

/* Run-time limits (sqlite3_limit). */
#define ENC_SQL_LIMIT_LENGTH 0

/* Loads SQLCipher once per process (thread-safe; later calls return the
 * first outcome). 0 on success; otherwise enc_sql_load_error() says why
 * (library missing, a function missing or resolving outside it, or a
 * libsqlcipher that another component loaded in a way that lets the host's
 * SQLite take its calls). Every other function here requires a successful
 * load first. */
int enc_sql_load(void);
const char *enc_sql_load_error(void);
/* The file SQLCipher was loaded from, and its version ("3.15.2"); NULL
 * before a successful load. */
const char *enc_sql_library_path(void);
const char *enc_sql_version(void);
/* 1 when libsqlcipher was already in the process (loaded by another
 * component) and encore shares that copy; 0 when encore loaded it. */
int enc_sql_shared_with_host(void);

/* The functions encore uses, as SQLite documents them. Text binds are
 * UTF-8 and copied (SQLITE_TRANSIENT); so are blob binds. */
int enc_sql_open(const char *path, int flags, enc_sql_db **db);
int enc_sql_close(enc_sql_db *db);
int enc_sql_key(enc_sql_db *db, const void *key, int length);
int enc_sql_rekey(enc_sql_db *db, const void *key, int length);
int enc_sql_exec(enc_sql_db *db, const char *sql);
const char *enc_sql_errmsg(enc_sql_db *db);
int enc_sql_extended_result_codes(enc_sql_db *db, int on);
int enc_sql_busy_timeout(enc_sql_db *db, int milliseconds);
int enc_sql_changes(enc_sql_db *db);
int64_t enc_sql_last_insert_rowid(enc_sql_db *db);

int enc_sql_prepare(enc_sql_db *db, const char *sql, enc_sql_stmt **stmt);
int enc_sql_finalize(enc_sql_stmt *stmt);
int enc_sql_reset(enc_sql_stmt *stmt);
int enc_sql_clear_bindings(enc_sql_stmt *stmt);
int enc_sql_step(enc_sql_stmt *stmt);
const char *enc_sql_sql(enc_sql_stmt *stmt);

int enc_sql_bind_int64(enc_sql_stmt *stmt, int index, int64_t value);
int enc_sql_bind_double(enc_sql_stmt *stmt, int index, double value);
int enc_sql_bind_null(enc_sql_stmt *stmt, int index);
int enc_sql_bind_text(enc_sql_stmt *stmt, int index, const char *text, uint64_t length);
int enc_sql_bind_blob(enc_sql_stmt *stmt, int index, const void *data, uint64_t length);

int enc_sql_column_type(enc_sql_stmt *stmt, int column);
int64_t enc_sql_column_int64(enc_sql_stmt *stmt, int column);
double enc_sql_column_double(enc_sql_stmt *stmt, int column);
const unsigned char *enc_sql_column_text(enc_sql_stmt *stmt, int column);
const void *enc_sql_column_blob(enc_sql_stmt *stmt, int column);
int enc_sql_column_bytes(enc_sql_stmt *stmt, int column);
int enc_sql_limit(enc_sql_db *db, int id, int value);

#endif /* ENCORE_SQL_H */
