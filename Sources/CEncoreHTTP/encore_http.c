/* One HTTP(S) request through libcurl: see include/encore_http.h. */
/* curl.h's type-checking macros would wrap the calls through the loaded
 * functions below (lib.curl_easy_setopt(...)) and break them. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/encore_http.h"
#include "library_loader.h"

#define MAX_HEADER_BYTES (64 * 1024)

/* libcurl is loaded on the first request, not linked: it brings some thirty
 * libraries (TLS, HTTP/2, Kerberos, LDAP, SSH, ...), whose mapping and
 * relocation cost every start of the tool (and of a host with its own
 * transport) whether it makes a request or not (CLibraryLoader). Missing or
 * unusable, it is a request's error (ENC_HTTP_ERR_UNAVAILABLE). */
#define ENC_HTTP_SONAME "libcurl.so.4"

/* Every libcurl function called. Their types come from curl.h through
 * __typeof__, which takes no address: no curl_* symbol is referenced. */
#define ENC_HTTP_FUNCTIONS(X)                                                                       \
    X(curl_global_init) X(curl_easy_strerror) X(curl_easy_init) X(curl_easy_setopt)                 \
    X(curl_easy_perform) X(curl_easy_getinfo) X(curl_easy_cleanup) X(curl_slist_append)             \
    X(curl_slist_free_all) X(curl_version_info)

static struct {
#define ENC_HTTP_FIELD(name) __typeof__(name) *name;
    ENC_HTTP_FUNCTIONS(ENC_HTTP_FIELD)
#undef ENC_HTTP_FIELD
} lib;

#define ENC_HTTP_NAME(name) #name,
static const char *const lib_names[] = {ENC_HTTP_FUNCTIONS(ENC_HTTP_NAME)};
#undef ENC_HTTP_NAME
_Static_assert(sizeof lib == sizeof lib_names / sizeof lib_names[0] * sizeof(void *), "one function pointer a name");

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_status = ENC_HTTP_ERR_INTERNAL;
static char init_error[512] = "libcurl was not loaded";

/* Loads libcurl and starts it, once per process (curl_global_init is not
 * thread-safe in older libcurl). The handle stays open for the life of
 * the process. */
static void init(void) {
    if (enc_library_load(ENC_HTTP_SONAME, "libcurl", "libcurl4", lib_names, sizeof lib_names / sizeof lib_names[0], &lib,
                         init_error, sizeof init_error) == NULL) {
        init_status = ENC_HTTP_ERR_UNAVAILABLE;
        return;
    }
    CURLcode rc = lib.curl_global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK) {
        snprintf(init_error, sizeof init_error, "libcurl could not start: %s", lib.curl_easy_strerror(rc));
        return;
    }
    init_status = ENC_HTTP_OK;
}

typedef struct buffer {
    uint8_t *data;
    size_t length;
    size_t capacity;
    uint64_t limit;
    int over;              /* the limit was hit: the transfer is aborted */
} buffer;

static int append(buffer *b, const void *data, size_t n) {
    if ((uint64_t)b->length + n > b->limit) {
        b->over = 1;
        return -1;
    }
    if (b->length + n + 1 > b->capacity) {
        size_t want = b->capacity ? b->capacity : 4096;
        while (want < b->length + n + 1) want *= 2;
        uint8_t *grown = realloc(b->data, want);
        if (grown == NULL) return -1;
        b->data = grown;
        b->capacity = want;
    }
    memcpy(b->data + b->length, data, n);
    b->length += n;
    b->data[b->length] = 0;
    return 0;
}

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    size_t n = size * count;
    return append(context, data, n) == 0 ? n : 0;
}

/* Keeps only the last answer's headers: a new status line (after a 100
 * Continue, say) starts the block again. */
static size_t on_header(char *data, size_t size, size_t count, void *context) {
    buffer *b = context;
    size_t n = size * count;
    if (n >= 5 && memcmp(data, "HTTP/", 5) == 0) b->length = 0;
    return append(b, data, n) == 0 ? n : 0;
}

typedef struct progress {
    int (*cancel)(void *);
    void *context;
    int cancelled;
} progress;

static int on_progress(void *context, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un) {
    (void)dt; (void)dn; (void)ut; (void)un;
    progress *p = context;
    if (p->cancel != NULL && p->cancel(p->context) != 0) {
        p->cancelled = 1;
        return 1;
    }
    return 0;
}

static int outcome(CURLcode rc, const buffer *body, const buffer *headers, const progress *p) {
    if (p->cancelled) return ENC_HTTP_ERR_CANCELLED;
    if (body->over || headers->over) return ENC_HTTP_ERR_TOO_LARGE;
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST: case CURLE_COULDNT_RESOLVE_PROXY: case CURLE_COULDNT_CONNECT:
        return ENC_HTTP_ERR_CONNECT;
    case CURLE_OPERATION_TIMEDOUT:
        return ENC_HTTP_ERR_TIMEOUT;
    case CURLE_SSL_CONNECT_ERROR: case CURLE_PEER_FAILED_VERIFICATION: case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER: case CURLE_SSL_CACERT_BADFILE: case CURLE_SSL_ISSUER_ERROR:
        return ENC_HTTP_ERR_TLS;
    case CURLE_UNSUPPORTED_PROTOCOL: case CURLE_URL_MALFORMAT: case CURLE_BAD_FUNCTION_ARGUMENT:
        return ENC_HTTP_ERR_ARGUMENT;
    case CURLE_OUT_OF_MEMORY: case CURLE_FAILED_INIT:
        return ENC_HTTP_ERR_INTERNAL;
    default:
        return ENC_HTTP_ERR_PROTOCOL;
    }
}

int enc_http_perform(const enc_http_request *r, enc_http_response *response, char *error, size_t error_size) {
    char curl_error[CURL_ERROR_SIZE] = "";
    pthread_once(&init_once, init);
    if (init_status != ENC_HTTP_OK) {
        snprintf(error, error_size, "%s", init_error);
        return init_status;
    }
    CURL *curl = lib.curl_easy_init();
    if (curl == NULL) {
        snprintf(error, error_size, "libcurl could not make a handle");
        return ENC_HTTP_ERR_INTERNAL;
    }
    buffer body = {NULL, 0, 0, r->max_response_bytes, 0};
    buffer headers = {NULL, 0, 0, MAX_HEADER_BYTES, 0};
    progress p = {r->cancel, r->cancel_context, 0};
    struct curl_slist *list = NULL;
    /* No Accept or Expect headers of curl's own: what goes on the wire is
     * what the caller asked for (padding makes request sizes equal). */
    list = lib.curl_slist_append(list, "Accept:");
    list = lib.curl_slist_append(list, "Expect:");
    for (size_t i = 0; i < r->header_count && list != NULL; i++) list = lib.curl_slist_append(list, r->headers[i]);

    int failed = list == NULL;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_URL, r->url) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, r->method) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, (long)r->connect_timeout_ms) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)r->timeout_ms) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_HEADERDATA, &headers) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &p) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L) != CURLE_OK;
    failed |= lib.curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_error) != CURLE_OK;
    /* A body, also an empty one for POST/PUT (a Content-Length: 0). */
    if (r->body != NULL || strcmp(r->method, "POST") == 0 || strcmp(r->method, "PUT") == 0) {
        failed |= lib.curl_easy_setopt(curl, CURLOPT_POSTFIELDS, r->body != NULL ? (const char *)r->body : "") != CURLE_OK;
        failed |= lib.curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_length) != CURLE_OK;
    }
    if (r->ca_file != NULL) failed |= lib.curl_easy_setopt(curl, CURLOPT_CAINFO, r->ca_file) != CURLE_OK;
    if (r->ca_dir != NULL) failed |= lib.curl_easy_setopt(curl, CURLOPT_CAPATH, r->ca_dir) != CURLE_OK;

    int status;
    if (failed) {
        snprintf(error, error_size, "libcurl refused the request's options (URL %s)", r->url);
        status = ENC_HTTP_ERR_ARGUMENT;
    } else {
        CURLcode rc = lib.curl_easy_perform(curl);
        status = rc == CURLE_OK && !body.over && !headers.over ? ENC_HTTP_OK : outcome(rc, &body, &headers, &p);
        if (status == ENC_HTTP_OK) {
            long code = 0;
            lib.curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
            response->status = code;
            response->headers = (char *)headers.data;
            response->headers_length = headers.length;
            response->body = body.data;
            response->body_length = body.length;
            headers.data = NULL;
            body.data = NULL;
        } else if (status == ENC_HTTP_ERR_TOO_LARGE) {
            snprintf(error, error_size, "the answer is larger than %llu bytes", (unsigned long long)(body.over ? r->max_response_bytes : MAX_HEADER_BYTES));
        } else if (status == ENC_HTTP_ERR_CANCELLED) {
            snprintf(error, error_size, "cancelled");
        } else {
            snprintf(error, error_size, "%s", curl_error[0] ? curl_error : lib.curl_easy_strerror(rc));
        }
    }
    free(body.data);
    free(headers.data);
    lib.curl_slist_free_all(list);
    lib.curl_easy_cleanup(curl);
    return status;
}

void enc_http_response_free(enc_http_response *response) {
    if (response == NULL) return;
    free(response->headers);
    free(response->body);
    memset(response, 0, sizeof *response);
}

const char *enc_http_version(void) {
    pthread_once(&init_once, init);
    if (init_status != ENC_HTTP_OK) return "unavailable";
    const curl_version_info_data *v = lib.curl_version_info(CURLVERSION_NOW);
    return v != NULL ? v->version : "unknown";
}
