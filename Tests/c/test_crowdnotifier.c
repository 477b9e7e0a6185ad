/* CrowdNotifier from C, under valgrind: a venue made with the library, a
 * visit checked in from its QR code, its trace keys signed as a backend
 * signs them (an ES256 JWT made here with libcrypto) and matched through
 * the client on two threads with a progress callback, which can cancel
 * (nothing stored then). The signature's checks, the options' limits and
 * the arguments' errors. */
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "scratch.h"

static const int64_t NOW = 1795500000;
static const int64_t HOUR = 3600;

/* ---- an ES256 JWT over a body's SHA-256, as a CrowdNotifier backend sends it ---- */

/* base64 of n bytes into out (room for 4 * ((n + 2) / 3) + 1); url: the
 * JWT alphabet without padding. */
static void base64(char *out, const uint8_t *data, size_t n, int url) {
    int length = EVP_EncodeBlock((unsigned char *)out, data, (int)n);
    if (!url) return;
    while (length > 0 && out[length - 1] == '=') out[--length] = '\0';
    for (int i = 0; i < length; i++) {
        if (out[i] == '+') out[i] = '-';
        if (out[i] == '/') out[i] = '_';
    }
}

/* header.claims.signature, the claims naming `digest` as the content hash;
 * NULL when libcrypto fails. Freed with free(). */
static char *jwt_sign(EVP_PKEY *key, const uint8_t digest[32]) {
    static const char header[] = "{\"alg\":\"ES256\"}";
    char hash[48], claims[256], part[512];
    base64(hash, digest, 32, 0);
    snprintf(claims, sizeof claims,
             "{\"content-hash\":\"%s\",\"hash-alg\":\"sha-256\",\"iss\":\"test\",\"iat\":%lld,\"exp\":%lld}", hash,
             (long long)NOW, (long long)(NOW + 86400));
    char *token = malloc(1024);
    if (token == NULL) return NULL;
    base64(token, (const uint8_t *)header, strlen(header), 1);
    strcat(token, ".");
    base64(part, (const uint8_t *)claims, strlen(claims), 1);
    strcat(token, part);

    /* ECDSA over header.claims; the DER signature as JOSE's raw r || s */
    unsigned char der[80], raw[64];
    size_t der_length = sizeof der;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL && EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, key) == 1 &&
             EVP_DigestSign(ctx, der, &der_length, (const unsigned char *)token, strlen(token)) == 1;
    EVP_MD_CTX_free(ctx);
    const unsigned char *p = der;
    ECDSA_SIG *sig = ok ? d2i_ECDSA_SIG(NULL, &p, (long)der_length) : NULL;
    ok = sig != NULL && BN_bn2binpad(ECDSA_SIG_get0_r(sig), raw, 32) == 32 &&
         BN_bn2binpad(ECDSA_SIG_get0_s(sig), raw + 32, 32) == 32;
    ECDSA_SIG_free(sig);
    if (!ok) {
        free(token);
        return NULL;
    }
    strcat(token, ".");
    base64(part, raw, sizeof raw, 1);
    strcat(token, part);
    return token;
}

/* The PEM of key's public half, NUL-terminated; freed with free(). */
static char *public_pem(EVP_PKEY *key) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *data = NULL, *out = NULL;
    if (bio != NULL && PEM_write_bio_PUBKEY(bio, key) == 1) {
        long n = BIO_get_mem_data(bio, &data);
        out = n > 0 ? calloc((size_t)n + 1, 1) : NULL;
        if (out != NULL) memcpy(out, data, (size_t)n);
    }
    BIO_free(bio);
    return out;
}

/* ---- progress ---- */

typedef struct progress_log {
    pthread_mutex_t lock;
    int calls, overlapping, out_of_order, inside;
    uint64_t last_done, total;
    int32_t answer; /* what the callback returns: nonzero cancels */
} progress_log;

/* Called from the matching threads, one call at a time (the mutex is only
 * tried: a second call inside the first would be counted as overlapping). */
static int32_t on_progress(void *context, uint64_t done, uint64_t total) {
    progress_log *log = context;
    if (pthread_mutex_trylock(&log->lock) != 0) {
        log->overlapping++;
        return 0;
    }
    log->calls++;
    if (done < log->last_done || done > total || (log->total != 0 && total != log->total)) log->out_of_order++;
    log->last_done = done;
    log->total = total;
    pthread_mutex_unlock(&log->lock);
    return log->answer;
}

static void test_match(const char *dir) {
    char path[600];
    snprintf(path, sizeof path, "%s/cn.db", dir);
    encore_store_key key = {sizeof key, ENCORE_KEY_PASSPHRASE, (const uint8_t *)"pw", 2};
    encore_store *store = NULL;
    CHECK(encore_store_open(path, &key, NULL, &store) == ENCORE_OK);
    if (store == NULL) return;

    /* The venue and its QR code. */
    uint8_t secret[ENCORE_CROWDNOTIFIER_SECRET_BYTES], venue_key[ENCORE_CROWDNOTIFIER_PUBLIC_KEY_BYTES];
    CHECK(encore_crowdnotifier_keys_generate(secret, sizeof secret, venue_key, sizeof venue_key) == ENCORE_OK);
    encore_bytes qr = {0};
    CHECK(encore_crowdnotifier_make_qr_code(ENCORE_CROWDNOTIFIER_SWISSCOVID, "Zunfthaus", "Limmatquai 1", 0, 0, venue_key,
                                            sizeof venue_key, &qr) == ENCORE_OK);
    char *qr_text = calloc(qr.length + 1, 1);
    CHECK(qr_text != NULL);
    if (qr_text == NULL) return;
    memcpy(qr_text, qr.data, qr.length);
    /* Its trace keys for the hours of the visit, signed by the backend. */
    encore_bytes body = {0};
    CHECK(encore_crowdnotifier_make_trace_keys(secret, sizeof secret, qr_text, NOW - 3 * HOUR, NOW - HOUR, "Bitte testen",
                                               ENCORE_CROWDNOTIFIER_SWISSCOVID, &body) == ENCORE_OK);
    EVP_PKEY *backend = EVP_EC_gen("P-256"), *stranger = EVP_EC_gen("P-256");
    CHECK(backend != NULL && stranger != NULL);
    uint8_t digest[32], zero[32] = {0};
    CHECK(EVP_Digest(body.data, body.length, digest, NULL, EVP_sha256(), NULL) == 1);
    char *signature = jwt_sign(backend, digest), *wrong_hash = jwt_sign(backend, zero), *wrong_key = jwt_sign(stranger, digest);
    char *pem = public_pem(backend);
    CHECK(signature != NULL && wrong_hash != NULL && wrong_key != NULL && pem != NULL);

    /* The app's client, with the backend's key, its clock at NOW; the visit from 3 to 1 hours ago. */
    int64_t clock_now = NOW;
    encore_client_options co = test_client_options(NULL, &clock_now);
    co.crowdnotifier_public_key = (const uint8_t *)pem;
    co.crowdnotifier_public_key_length = pem == NULL ? 0 : strlen(pem);
    encore_client *client = test_client(store, &co);
    int64_t visit = 0;
    CHECK(encore_checkin_add(client, qr_text, NOW - 3 * HOUR, NOW - HOUR, ENCORE_CHECKIN_MODE_DIARY, &visit) == ENCORE_OK && visit > 0);

    encore_trace_key_match_options o;
    CHECK(encore_trace_key_match_options_init(&o, sizeof o) == ENCORE_OK);
    progress_log log = {.lock = PTHREAD_MUTEX_INITIALIZER};
    o.threads = 2;
    o.progress = on_progress;
    o.progress_context = &log;
    encore_trace_key_match_summary s, untouched;
    memset(&untouched, 0x5A, sizeof untouched); /* the caller sets struct_size; failures write nothing */
    untouched.struct_size = sizeof untouched;

    /* Only what the backend's key signed over these bytes is matched. */
    s = untouched;
    CHECK(encore_crowdnotifier_match_trace_keys_with_options(client, body.data, body.length, wrong_hash, "1", &o, &s) ==
          ENCORE_ERR_TRACE_KEYS_CONTENT_HASH);
    encore_status st = encore_crowdnotifier_match_trace_keys_with_options(client, body.data, body.length, wrong_key, "1", &o, &s);
    CHECK(st == ENCORE_ERR_SIGNATURE_INVALID || st == ENCORE_ERR_SIGNATURE_UNTRUSTED);
    CHECK(memcmp(&s, &untouched, sizeof s) == 0 && log.calls == 0);

    /* Cancelled by the callback: an error, nothing stored (no bundle tag). */
    log.answer = 1;
    CHECK(encore_crowdnotifier_match_trace_keys_with_options(client, body.data, body.length, signature, "1795499940000", &o, &s) ==
          ENCORE_ERR_CANCELLED);
    CHECK(log.calls >= 1 && memcmp(&s, &untouched, sizeof s) == 0);
    encore_bytes tag = {0};
    CHECK(encore_crowdnotifier_get_bundle_tag(client, &tag) == ENCORE_ERR_NOT_FOUND && tag.data == NULL);

    /* Matched on two threads: each hour's key opens the visit, once;
     * progress up to the total. */
    log = (progress_log){.lock = PTHREAD_MUTEX_INITIALIZER};
    s = untouched;
    CHECK(encore_crowdnotifier_match_trace_keys_with_options(client, body.data, body.length, signature, "1795499940000", &o, &s) ==
          ENCORE_OK);
    CHECK(s.struct_size == sizeof s && s.skipped == 0 && s.invalid_keys == 0);
    CHECK(s.events == 3 && s.matches == 3 && s.new_matches == 3 && s.pairings >= 3);
    CHECK(log.calls >= 1 && log.overlapping == 0 && log.out_of_order == 0);
    CHECK(log.total == s.events && log.last_done == log.total);
    CHECK(encore_crowdnotifier_get_bundle_tag(client, &tag) == ENCORE_OK && tag.length == 13 &&
          memcmp(tag.data, "1795499940000", 13) == 0);
    encore_bytes_free(&tag);
    /* Again, the default options: seen before, nothing new to notify. */
    CHECK(encore_crowdnotifier_match_trace_keys(client, body.data, body.length, signature, NULL, &s) == ENCORE_OK);
    CHECK(s.matches == 3 && s.new_matches == 0);

    /* Limits and arguments: refused before anything is read or stored. */
    o.threads = 257;
    CHECK(encore_crowdnotifier_match_trace_keys_with_options(client, body.data, body.length, signature, NULL, &o, NULL) ==
          ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_crowdnotifier_match_trace_keys(NULL, body.data, body.length, signature, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_crowdnotifier_match_trace_keys(client, NULL, 5, signature, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_crowdnotifier_match_trace_keys(client, body.data, body.length, NULL, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    static const uint8_t garbage[3] = {0xff, 0xff, 0xff};
    CHECK(encore_crowdnotifier_match_trace_keys(client, garbage, sizeof garbage, signature, NULL, NULL) ==
          ENCORE_ERR_TRACE_KEYS_CONTENT_HASH);

    free(signature);
    free(wrong_hash);
    free(wrong_key);
    free(pem);
    EVP_PKEY_free(backend);
    EVP_PKEY_free(stranger);
    encore_bytes_free(&body);
    encore_bytes_free(&qr);
    free(qr_text);
    encore_client_free(client);
    encore_store_close(store);
}

int main(void) {
    char dir[512];
    if (scratch_dir_make(dir, sizeof dir, "crowdnotifier") != 0) return 1;
    test_match(dir);
    scratch_dir_remove(dir);
    return check_report();
}
