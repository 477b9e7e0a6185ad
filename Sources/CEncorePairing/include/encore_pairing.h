/*
 * encore_pairing.h — BLS12-381 pairing, bit-compatible with mcl (as wrapped by
 * pymcl) in its default mode, for CrowdNotifier v3 check-ins.
 *
 * Conventions
 *  - Curve: E: y^2 = x^3 + 4 over Fp; G2 lives on the M-type twist
 *    E': y^2 = x^3 + 4(1+i) over Fp2 = Fp[i]/(i^2+1).  GT sits in
 *    Fp12 = Fp6[w]/(w^2 - v), Fp6 = Fp2[v]/(v^3 - (1+i)), exactly mcl's tower.
 *  - Points are held in homogeneous projective coordinates (X:Y:Z); the
 *    identity is (0:1:0).  All arithmetic uses complete (exception-free)
 *    formulas, so no function below branches on the identity or on
 *    P == Q.
 *  - Scalars (enc_fr) are canonical integers < r, four little-endian 64-bit
 *    limbs; on the wire they are 32 bytes little-endian (mcl's Fr format).
 *  - "CT" marks routines whose running time and memory access pattern do not
 *    depend on secret inputs (all field arithmetic is branch-free; inversion
 *    is Fermat with the fixed exponent p-2).  "VT" marks variable-time
 *    routines, meant for public data only (parsing, subgroup checks, cofactor
 *    clearing, hashing of public identities).
 *  - All functions are thread-safe: there is no global mutable state and no
 *    initialisation step.  Output pointers may alias inputs.
 *
 * The struct layouts are exposed only so callers can allocate them; their
 * contents (Montgomery-form limbs) are private to this library.
 */
#ifndef ENCORE_PAIRING_H
#define ENCORE_PAIRING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENC_BLS_FR_BYTES 32
#define ENC_BLS_G1_BYTES 48
#define ENC_BLS_G2_BYTES 96
#define ENC_BLS_GT_BYTES 576

/* Result codes.  Parsers return exactly one of these; the negative codes are
 * distinct so a caller can tell a malformed encoding from a point that is
 * well-formed but unusable. */
enum {
    ENC_BLS_OK = 0,
    ENC_BLS_ERR_ENCODING = -1,        /* coordinate >= p (incl. stray flag bits), scalar >= r */
    ENC_BLS_ERR_NOT_ON_CURVE = -2,    /* no y with y^2 = x^3 + b for this x */
    ENC_BLS_ERR_NOT_IN_SUBGROUP = -3, /* on the curve (or in Fp12*) but not of order r */
    ENC_BLS_ERR_IDENTITY = -4         /* identity where a non-zero point is required */
};

typedef struct { uint64_t l[6]; } enc_fp;          /* Montgomery form, < p */
typedef struct { enc_fp a, b; } enc_fp2;            /* a + b*i */
typedef struct { enc_fp2 a, b, c; } enc_fp6;        /* a + b*v + c*v^2 */
typedef struct { enc_fp6 a, b; } enc_fp12;          /* a + b*w */
typedef struct { enc_fp x, y, z; } enc_g1;          /* projective (X:Y:Z) on E */
typedef struct { enc_fp2 x, y, z; } enc_g2;         /* projective (X:Y:Z) on E' */
typedef struct { enc_fp12 f; } enc_gt;              /* element of the order-r subgroup of Fp12* */
typedef struct { uint64_t l[4]; } enc_fr;           /* canonical integer < r */

/* ---------------------------------------------------------------- Fr -- */

/* Parses 32 little-endian bytes; ENC_BLS_ERR_ENCODING if the value is >= r
 * (mcl rejects those too).  CT in the value (the verdict itself is public). */
int enc_bls_fr_from_bytes(enc_fr *out, const uint8_t in[ENC_BLS_FR_BYTES]);
/* Writes 32 little-endian bytes.  CT. */
void enc_bls_fr_to_bytes(uint8_t out[ENC_BLS_FR_BYTES], const enc_fr *a);
/* Reduces 64 little-endian bytes modulo r (for uniform scalars from 512 random bits).  CT. */
void enc_bls_fr_from_wide_bytes(enc_fr *out, const uint8_t in[64]);
/* mcl's Fr::setHashOf: SHA-256(msg) read little-endian, masked to 255 bits,
 * and to 254 bits if still >= r.  This is CrowdNotifier's HashToFr.  CT in msg
 * contents (the length is public). */
void enc_bls_fr_hash(enc_fr *out, const uint8_t *msg, size_t len);
/* r = a + b, a - b, a * b, -a (mod r).  CT. */
void enc_bls_fr_add(enc_fr *out, const enc_fr *a, const enc_fr *b);
void enc_bls_fr_sub(enc_fr *out, const enc_fr *a, const enc_fr *b);
void enc_bls_fr_mul(enc_fr *out, const enc_fr *a, const enc_fr *b);
void enc_bls_fr_neg(enc_fr *out, const enc_fr *a);
/* 1 if a == b (resp. a == 0), else 0.  CT. */
int enc_bls_fr_eq(const enc_fr *a, const enc_fr *b);
int enc_bls_fr_is_zero(const enc_fr *a);

/* ---------------------------------------------------------------- G1 -- */

/* The identity (0:1:0) and the standard generator (pymcl.g1). */
void enc_bls_g1_identity(enc_g1 *out);
void enc_bls_g1_generator(enc_g1 *out);
/* out = a + b, 2a, -a.  Complete formulas, CT. */
void enc_bls_g1_add(enc_g1 *out, const enc_g1 *a, const enc_g1 *b);
/* Mixed addition: b must be affine (Z = 1, e.g. from enc_bls_g1_normalize or
 * a parser) and not the identity; a may be anything.  CT. */
void enc_bls_g1_add_affine(enc_g1 *out, const enc_g1 *a, const enc_g1 *b);
void enc_bls_g1_dbl(enc_g1 *out, const enc_g1 *a);
void enc_bls_g1_neg(enc_g1 *out, const enc_g1 *a);
/* 1 if a == b as points (any representatives) / a is the identity.  CT. */
int enc_bls_g1_eq(const enc_g1 *a, const enc_g1 *b);
int enc_bls_g1_is_identity(const enc_g1 *a);
/* Rescales to Z = 1 (identity stays (0:1:0)).  CT (Fermat inversion). */
void enc_bls_g1_normalize(enc_g1 *out, const enc_g1 *a);
/* 1 if (X:Y:Z) satisfies Y^2 Z = X^3 + 4 Z^3 (the identity does).  CT. */
int enc_bls_g1_is_on_curve(const enc_g1 *a);
/* 1 if a (a point on the curve) has order dividing r, by Scott's
 * endomorphism test phi(a) == [-z^2] a, verified against r*a == O in the
 * tests.  VT (a is assumed public). */
int enc_bls_g1_in_subgroup(const enc_g1 *a);
/* out = k*a for a secret scalar k: fixed 4-bit windows over all 256 bits with
 * a full constant-time table scan and complete formulas.  CT in k and a. */
void enc_bls_g1_mul(enc_g1 *out, const enc_g1 *a, const enc_fr *k);
/* out = k*a for an arbitrary-length public little-endian limb scalar.  VT. */
void enc_bls_g1_mul_vartime(enc_g1 *out, const enc_g1 *a, const uint64_t *k, size_t nlimbs);
/* mcl's compressed form: x little-endian, 0x80 in byte 47 when y is odd,
 * 48 zero bytes for the identity.  CT apart from the identity test. */
void enc_bls_g1_serialize(uint8_t out[ENC_BLS_G1_BYTES], const enc_g1 *a);
/* Full validation of 48 bytes: ENC_BLS_ERR_ENCODING (x >= p, incl. stray bits
 * 0x40/0x20), ENC_BLS_ERR_NOT_ON_CURVE, ENC_BLS_ERR_NOT_IN_SUBGROUP.  All zeros
 * is the identity and returns ENC_BLS_OK.  *out is written only on success.  VT. */
int enc_bls_g1_deserialize(enc_g1 *out, const uint8_t in[ENC_BLS_G1_BYTES]);
/* As above, but the identity is rejected with ENC_BLS_ERR_IDENTITY (for
 * CrowdNotifier's sk_id, which must be a non-zero point of G1). */
int enc_bls_g1_deserialize_nonzero(enc_g1 *out, const uint8_t in[ENC_BLS_G1_BYTES]);
/* mcl's hashAndMapToG1 in its default ("original") mode: SHA-512 truncated to
 * 48 bytes little-endian, masked to 381 (then 380) bits, the calcBN
 * Shallue-van de Woestijne map, times the cofactor (z-1)^2/3.  Equals
 * pymcl.G1.hash(msg).  VT (identities are public). */
void enc_bls_g1_hash(enc_g1 *out, const uint8_t *msg, size_t len);

/* ---------------------------------------------------------------- G2 -- */

/* Same contract as the G1 functions, on the twist E' over Fp2. */
void enc_bls_g2_identity(enc_g2 *out);
void enc_bls_g2_generator(enc_g2 *out);          /* pymcl.g2 */
void enc_bls_g2_add(enc_g2 *out, const enc_g2 *a, const enc_g2 *b);
void enc_bls_g2_add_affine(enc_g2 *out, const enc_g2 *a, const enc_g2 *b);
void enc_bls_g2_dbl(enc_g2 *out, const enc_g2 *a);
void enc_bls_g2_neg(enc_g2 *out, const enc_g2 *a);
int enc_bls_g2_eq(const enc_g2 *a, const enc_g2 *b);
int enc_bls_g2_is_identity(const enc_g2 *a);
void enc_bls_g2_normalize(enc_g2 *out, const enc_g2 *a);
int enc_bls_g2_is_on_curve(const enc_g2 *a);
int enc_bls_g2_in_subgroup(const enc_g2 *a);     /* VT; psi(a) == [z] a */
void enc_bls_g2_mul(enc_g2 *out, const enc_g2 *a, const enc_fr *k);  /* CT */
void enc_bls_g2_mul_vartime(enc_g2 *out, const enc_g2 *a, const uint64_t *k, size_t nlimbs);
/* x.a || x.b, each 48 bytes little-endian, 0x80 in byte 95 when y.a is odd;
 * 96 zero bytes for the identity. */
void enc_bls_g2_serialize(uint8_t out[ENC_BLS_G2_BYTES], const enc_g2 *a);
int enc_bls_g2_deserialize(enc_g2 *out, const uint8_t in[ENC_BLS_G2_BYTES]);  /* VT */
int enc_bls_g2_deserialize_nonzero(enc_g2 *out, const uint8_t in[ENC_BLS_G2_BYTES]);  /* VT; mpk, c1 */

/* ---------------------------------------------------------------- GT -- */

/* The optimal ate pairing, reduced exactly as mcl reduces it (the cube of
 * the textbook reduced pairing), so that serialisations agree byte for byte.
 * e(P, O) = e(O, Q) = 1.  CT in P and Q (the Miller loop follows the public
 * bits of z; an identity input is handled with masked moves). */
void enc_bls_pairing(enc_gt *out, const enc_g1 *p, const enc_g2 *q);
/* prod_i e(p[i], q[i]) with one shared final exponentiation (n may be 0). */
void enc_bls_multi_pairing(enc_gt *out, const enc_g1 *p, const enc_g2 *q, size_t n);
/* e(p, q)^k computed as e(k*p, q): the cheap way to get the IBE mask.  CT. */
void enc_bls_pairing_pow(enc_gt *out, const enc_g1 *p, const enc_g2 *q, const enc_fr *k);
/* The Miller-loop lines of a fixed Q, for pairing it with many P: 63
 * doublings and 5 additions (the bits of |z|), each line three Fp2
 * coefficients (about 20 KB).  The pairing from a prepared Q equals
 * enc_bls_pairing bit for bit, at a lower cost (no arithmetic on Q, and
 * sparser line products: each line is divided by its constant term, an
 * Fp2 factor that the final exponentiation removes).
 * q may be any point; the identity prepares to a value that pairs to 1.
 * Both are CT in their point arguments, except that the pairing skips
 * normalising a P that is affine already (Z = 1, as parsed). */
#define ENC_BLS_G2_PREPARED_LINES 68
typedef struct {
    enc_fp2 lines[ENC_BLS_G2_PREPARED_LINES][3];
    uint64_t degenerate; /* all-ones when Q is the identity */
    uint64_t scaled;     /* 1 when every line is scaled to l0 = 1 */
} enc_g2_prepared;
void enc_bls_g2_prepare(enc_g2_prepared *out, const enc_g2 *q);
void enc_bls_pairing_prepared(enc_gt *out, const enc_g1 *p, const enc_g2_prepared *q);
/* out[i] = e(p, q[i]) for i < n, each equal to enc_bls_pairing_prepared's
 * bit for bit: the final exponentiations run side by side in groups of 8 and
 * share their inversions (six per pairing alone).  What matching does with a
 * trace key and the prepared hours of its day.  Same CT properties. */
void enc_bls_pairing_prepared_many(enc_gt *out, const enc_g1 *p, const enc_g2_prepared *const *q, size_t n);
void enc_bls_gt_one(enc_gt *out);
void enc_bls_gt_mul(enc_gt *out, const enc_gt *a, const enc_gt *b);   /* CT */
void enc_bls_gt_inv(enc_gt *out, const enc_gt *a);                    /* CT (conjugation) */
/* a^k for a secret k with cyclotomic squarings and a 4-bit window scanned in
 * constant time.  a must be in GT (a pairing value or a validated parse).  CT. */
void enc_bls_gt_pow(enc_gt *out, const enc_gt *a, const enc_fr *k);
int enc_bls_gt_eq(const enc_gt *a, const enc_gt *b);                  /* CT */
int enc_bls_gt_is_one(const enc_gt *a);                               /* CT */
/* 12 x 48 bytes little-endian, in mcl's order a.a.a, a.a.b, a.b.a, ..., b.c.b. */
void enc_bls_gt_serialize(uint8_t out[ENC_BLS_GT_BYTES], const enc_gt *a);
/* ENC_BLS_ERR_ENCODING if a coefficient is >= p, ENC_BLS_ERR_NOT_IN_SUBGROUP
 * if the element is not of order dividing r (zero included).  VT. */
int enc_bls_gt_deserialize(enc_gt *out, const uint8_t in[ENC_BLS_GT_BYTES]);

#ifdef __cplusplus
}
#endif

#endif /* ENCORE_PAIRING_H */
