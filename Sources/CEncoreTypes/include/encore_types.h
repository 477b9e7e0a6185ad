/*
 * Public C types of libencore used by every part: version macros, status
 * codes, the progress callback and the memory the library hands out.
 *
 * This file is the single source of truth for these types. The Swift C-ABI
 * layer imports it (so Swift writes exactly these layouts), and
 * scripts/gen-header.py copies it into include/encore.h, followed by the
 * function declarations it generates from the Swift @c functions.
 */
#ifndef ENCORE_TYPES_H
#define ENCORE_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Version of the library this header belongs to. encore_version() and
 * encore_version_number() return the same values at run time. */
#define ENCORE_VERSION_MAJOR 1
#define ENCORE_VERSION_MINOR 1
#define ENCORE_VERSION_PATCH 0
#define ENCORE_VERSION_STRING "1.1.0"
#define ENCORE_VERSION_NUMBER ((ENCORE_VERSION_MAJOR * 10000) + (ENCORE_VERSION_MINOR * 100) + ENCORE_VERSION_PATCH)

/* Result of every fallible function. A fixed-size integer, not an enum, so its
 * size never depends on the compiler; values are never renumbered. On failure
 * encore_last_error_message() explains the status on the calling thread. */
typedef int32_t encore_status;

/* General */
#define ENCORE_OK 0                    /* success */
#define ENCORE_ERR_INVALID_ARGUMENT 1   /* NULL pointer, bad length, bad option */
#define ENCORE_ERR_OUT_OF_MEMORY 2      /* an allocation failed */
#define ENCORE_ERR_IO 3                 /* a file could not be read */
#define ENCORE_ERR_CANCELLED 4          /* the progress callback asked to stop */
#define ENCORE_ERR_INTERNAL 5           /* a bug in encore: please report it */
#define ENCORE_ERR_OUT_OF_RANGE 6       /* an index or count past the end */
#define ENCORE_ERR_NOT_FOUND 7          /* no such entry (setting, key file, result) */

/* Zip container */
#define ENCORE_ERR_ZIP_NOT_ZIP 10       /* no zip structure, and not a bare export.bin */
#define ENCORE_ERR_ZIP_TRUNCATED 11     /* a structure runs past the end of the input */
#define ENCORE_ERR_ZIP_CRC 12           /* a member's CRC-32 does not match */
#define ENCORE_ERR_ZIP_UNSUPPORTED 13   /* compression method, encryption, zip64, multi-disk */
#define ENCORE_ERR_ZIP_LIMIT 14         /* a size or compression-ratio limit was exceeded */
#define ENCORE_ERR_ZIP_MEMBERS 15       /* not exactly export.bin + optional export.sig */
#define ENCORE_ERR_ZIP_CORRUPT 16       /* inconsistent headers, bad deflate data, wrong sizes */

/* export.bin */
#define ENCORE_ERR_EXPORT_HEADER 20     /* the 16-byte "EK Export v1    " header is missing */
#define ENCORE_ERR_EXPORT_MALFORMED 21  /* the protobuf cannot be decoded */

/* export.sig and verification */
#define ENCORE_ERR_SIGNATURE_MISSING 30   /* unsigned file while verification is on */
#define ENCORE_ERR_SIGNATURE_UNTRUSTED 31 /* signed only by keys not in the trust list */
#define ENCORE_ERR_SIGNATURE_INVALID 32   /* a trusted key's signature does not verify */
#define ENCORE_ERR_SIGNATURE_MALFORMED 33 /* export.sig cannot be decoded */
#define ENCORE_ERR_BATCH 34               /* batch_num/batch_size break the batch rules */
#define ENCORE_ERR_KEY_FORMAT 35          /* a trusted public key is not a usable EC key */

/* Encrypted store */
#define ENCORE_ERR_STORE_WRONG_KEY 40     /* the key does not open the store; the file is untouched */
#define ENCORE_ERR_STORE_NOT_DATABASE 41  /* the file is not an encore store (not a SQLCipher database of any key) */
#define ENCORE_ERR_STORE_TOO_NEW 42       /* written by a newer encore (schema version); untouched */
#define ENCORE_ERR_STORE_FAILED 43        /* SQLite failed: disk full, I/O error, ... */
#define ENCORE_ERR_STORE_BUSY 44          /* another process held the store past the busy timeout */
#define ENCORE_ERR_STORE_MISSING 45       /* no store at the path (no file, or an empty one), and creating one was not allowed; an empty file is never made a store */
#define ENCORE_ERR_STORE_CLOSED 46        /* the store was closed (encore_store_close()): a client made on it can do nothing more */
#define ENCORE_ERR_STORE_CORRUPT 47       /* the store is damaged: the key opens its first page, but a page or the file's length is broken (encore store salvage) */

/* Servers and the network */
#define ENCORE_ERR_NETWORK 50             /* no answer: no connection, or a dropped or broken transfer */
#define ENCORE_ERR_TIMEOUT 51             /* no answer in time */
#define ENCORE_ERR_TLS 52                 /* the TLS handshake or the certificate check failed */
#define ENCORE_ERR_RESPONSE_TOO_LARGE 53  /* the answer was larger than the transport allows */
#define ENCORE_ERR_SERVER_REFUSED 54      /* the server answered 4xx: it refused the request */
#define ENCORE_ERR_SERVER_UNAVAILABLE 55  /* the server answered 5xx or 429: try again later */
#define ENCORE_ERR_PROTOCOL 56            /* an answer encore cannot read (malformed, unexpected, a redirect) */

/* Test results and key submission */
#define ENCORE_ERR_TEST_KEY 60            /* a QR code, GUID, teleTAN or date of birth that cannot be right; nothing was sent */
#define ENCORE_ERR_NOT_REGISTERED 61      /* no test is registered */
#define ENCORE_ERR_ALREADY_REGISTERED 62  /* a test is registered already: forget it first */
#define ENCORE_ERR_NOT_POSITIVE 63        /* the test is not positive: nothing to submit */
#define ENCORE_ERR_TAN_REFUSED 64         /* the TAN was refused (used, unknown) or has expired */
#define ENCORE_ERR_ALREADY_SUBMITTED 65   /* this test's keys were submitted already */

/* Check-ins */
#define ENCORE_ERR_QR_NOT_CWA 70          /* not a CWA event QR code (https://e.coronawarn.app?v=1#...) */
#define ENCORE_ERR_QR_VERSION 71          /* a check-in QR code of a version encore does not know */
#define ENCORE_ERR_QR_ENCODING 72         /* the QR code's payload is not base64url */
#define ENCORE_ERR_QR_MALFORMED 73        /* the payload is not a QRCodePayload protobuf with a location */
#define ENCORE_ERR_QR_INVALID 74          /* the location breaks the app's rules: an empty or multi-line text, over 255 characters, a start without an end, ... */
#define ENCORE_ERR_QR_TOO_LARGE 75        /* the QR code is larger than any real one */
#define ENCORE_ERR_WARNING_MALFORMED 76   /* a trace warning package's export.bin is not a TraceWarningPackage */
#define ENCORE_ERR_CHECKIN_TIMES 77       /* check-in times that cannot be: an end before the start, a negative time */
#define ENCORE_ERR_REPORT_MAC 78          /* a protected report's MAC does not verify with the location's key */
#define ENCORE_ERR_REPORT_INVALID 79      /* a protected report of wrong lengths, bad padding or a record that does not decode */

/* CrowdNotifier check-ins (SwissCovid, NotifyMe) */
#define ENCORE_ERR_CN_PUBLIC_KEY 80       /* a CrowdNotifier QR code whose venue public key is not a usable G2 point */
#define ENCORE_ERR_TRACE_KEYS_MALFORMED 81 /* a trace-key body that is not a ProblematicEventWrapper */
#define ENCORE_ERR_TRACE_KEYS_TOO_LARGE 82 /* a trace-key body with more bytes or events than allowed */
#define ENCORE_ERR_TRACE_KEY_INVALID 83   /* a trace key's secret key is off the curve, outside G1, the identity; wrong field lengths */
#define ENCORE_ERR_CN_NO_MATCH 84         /* the trace key does not open the visit's ciphertext (or its c1 re-check fails) */
#define ENCORE_ERR_CN_SECRET 85           /* a venue master secret that is not one: wrong length, zero, not below r */
#define ENCORE_ERR_TRACE_KEYS_CONTENT_HASH 86 /* the body's SHA-256 is not the content hash its signature carries */
#define ENCORE_ERR_CHECKIN_QR_REQUIRED 87 /* a private check-in kept nothing of its venue: ending or editing it needs its QR code */
#define ENCORE_ERR_CHECKIN_QR_MISMATCH 88 /* the QR code given is not the check-in's (another app's, or not a diary check-in's venue) */

/* Silent pushes */
#define ENCORE_ERR_PUSH_TOKEN 90          /* a push token (or app-instance token) of the wrong form for its type */
#define ENCORE_ERR_PUSH_MESSAGE 91        /* a push registration body that is not a PushRegistration, too large, or of an unknown type */
#define ENCORE_ERR_PUSH_EVENT 92          /* an event name the registration rule does not know */

/* Creating CWA event QR codes (the organizer side) */
#define ENCORE_ERR_LOCATION_INVALID 100   /* a location to create that breaks the app's rules: type, text, times, default length */

/* Rapid tests and test results (110-119) */
#define ENCORE_ERR_TEST_CODE_HASH 110     /* a rapid test QR code whose hash does not match its content; nothing was sent */
#define ENCORE_ERR_DOB_MISMATCH 111       /* the verification server's 403: the date-of-birth key's result differs from the test's */
#define ENCORE_ERR_TEST_REDEEMED 112      /* the server reports the test redeemed when it is registered: it was discarded */

/* Network operations (encore_operation) */
#define ENCORE_ERR_OPERATION_STATE 120    /* an operation driven out of turn: an answer for a request it is not waiting for, a result before it finished */

/* Tracing (encore_tracer, 130-139) */
#define ENCORE_ERR_TRACING_INACTIVE 130   /* an advertisement or a scan asked for while tracing is off: encore_tracer_start() first */

/* Opaque handles. Each is created by its _new/_open function and released by
 * its _free function; passing NULL to a _free function does nothing. The
 * library cannot check a handle's type or lifetime: passing a freed handle,
 * or one of another type, is undefined behaviour, and so is freeing a handle
 * while another thread still uses it. */

/* Progress callback for long operations: `done` of `total` units (for key
 * files: bytes of export.bin checked, header included; the last call has
 * done == total). Return 0 to go on, anything else to cancel: the operation
 * then fails with ENCORE_ERR_CANCELLED and has no effect. */
typedef int32_t (*encore_progress_fn)(void *context, uint64_t done, uint64_t total);

/* Structs. Every struct that crosses the API, whether the caller passes it
 * in (options, keys, records, arrays), the library writes it (results,
 * summaries) or both, starts with `uint32_t struct_size`, so that every one
 * of them can grow: fields are only ever added at the end. The only
 * exceptions are encore_bytes and the HTTP header pair encore_http_header.
 * - Inputs: set struct_size to sizeof the struct (an _init function does
 *   it where there is one). An older, smaller struct reads as zero in
 *   the fields it lacks (every field added later has 0 as its default); a
 *   newer, larger one must leave the fields this library does not know
 *   at zero.
 * - Outputs: set struct_size to sizeof the struct before the call
 *   (ENCORE_OUTPUT_INIT does); the library writes only the fields the
 *   caller's struct has, zeroes the rest of a larger one, and leaves
 *   struct_size as it was.
 * - List elements: see "Lists" below; the library writes struct_size.
 * - A struct the library hands to a host's callback (encore_http_request)
 *   carries the library's struct_size: a field lies beyond it when the
 *   library is older than the host's header.
 * A struct_size (or element_size) below the size of the struct's first
 * version, 0 included, is ENCORE_ERR_INVALID_ARGUMENT. */
#define ENCORE_OUTPUT_INIT(output) ((output).struct_size = (uint32_t)sizeof(output))

/* Memory the library hands out (a general mechanism: store contents,
 * documents and text values now, later features too). A function that
 * returns bytes fills a caller's encore_bytes: `length` bytes at `data`,
 * followed by one NUL byte that `length` does not count, so a text result is
 * a C string as it is. On success `data` is never NULL, also for 0 bytes. The
 * caller owns the memory until it passes the struct to encore_bytes_free(),
 * which wipes and frees it and zeroes the struct; a zeroed struct may be
 * passed again. Pass only structs the library filled (or zeroed ones), and
 * do not free `data` with free(): it is not the start of an allocation. */
typedef struct encore_bytes {
    uint8_t *data;
    size_t length;
} encore_bytes;

/* Lists. Every function that returns several items copies them, the same
 * way everywhere:
 *
 *     encore_<noun>_copy_<items>(handle, ..., uint64_t first, T *out,
 *                                 size_t element_size, size_t capacity,
 *                                 size_t *copied)
 *
 * copies items first ..< first + capacity into out, each element_size
 * bytes apart (pass sizeof *out): *copied tells how many, fewer than
 * capacity only at the end of the list. `first` equal to the number of
 * items copies nothing; past it is ENCORE_ERR_OUT_OF_RANGE. The library
 * writes each element's struct_size as min(element_size, the size it
 * knows) and only those bytes, so a caller built against an older, smaller
 * element struct gets the fields it knows. Reading a list in pages (first
 * = 0, capacity, then first + copied ...) gives the same items as one
 * call. Where a list's size is not in a summary, a _count function tells
 * it. Input arrays take an element_size the same way.
 *
 * A list of strings the library hands out (key file names, setting names):
 * an immutable snapshot, read with encore_string_list_count() and
 * encore_string_list_copy() (each string copied into an encore_bytes the
 * caller owns), released with encore_string_list_free(). It may be read
 * from several threads. */
typedef struct encore_string_list encore_string_list;

#endif /* ENCORE_TYPES_H */
