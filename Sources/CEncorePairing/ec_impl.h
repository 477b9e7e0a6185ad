/*
 * Generic short-Weierstrass (a = 0) group law in homogeneous projective
 * coordinates, instantiated once for G1 (over Fp) and once for G2 (over Fp2)
 * by g1.c and g2.c.  The including file defines:
 *   EC_GROUP      g1 or g2: points are enc_<group>, functions enc_bls_<group>_<name>
 *   EC_FIELD      fp or fp2: elements are enc_<field>, operations enc_<field>_<op>
 *                 (add, sub, mul, sqr, neg, inv, eq_mask, is_zero_mask, one)
 *   EC_CURVE(c)   the curve's constant c: B (b), GEN_X and GEN_Y (the generator)
 * and a static <group>_mul_b3(r, a): r = 3b * a.
 *
 * Addition and doubling are the complete formulas of Renes, Costello and
 * Batina, "Complete addition formulas for prime order elliptic curves"
 * (EUROCRYPT 2016), Algorithms 7 and 9 (a = 0).  They are exception-free on
 * curves of odd order, which both E(Fp) and E'(Fp2) are (their cofactors and
 * r are odd), so the identity (0:1:0) and P == Q need no special case.
 */

#define EC_CAT_(a, b) a##b
#define EC_CAT(a, b) EC_CAT_(a, b)
#define EC_POINT EC_CAT(enc_, EC_GROUP)
#define EC_FE EC_CAT(enc_, EC_FIELD)
#define EC_FN(name) EC_CAT(EC_CAT(enc_bls_, EC_GROUP), EC_CAT(_, name))
#define EC_MUL_B3 EC_CAT(EC_GROUP, _mul_b3)
#define EC_F(op) EC_CAT(EC_CAT(enc_, EC_FIELD), EC_CAT(_, op))
#define EC_ADD EC_F(add)
#define EC_SUB EC_F(sub)
#define EC_MUL EC_F(mul)
#define EC_SQR EC_F(sqr)
#define EC_NEG EC_F(neg)
#define EC_INV EC_F(inv)
#define EC_EQ_MASK EC_F(eq_mask)
#define EC_ZERO_MASK EC_F(is_zero_mask)
#define EC_ONE EC_F(one)

void EC_FN(generator)(EC_POINT *out) {
    out->x = EC_CURVE(GEN_X);
    out->y = EC_CURVE(GEN_Y);
    EC_ONE(&out->z);
}

void EC_FN(identity)(EC_POINT *out) {
    memset(out, 0, sizeof(*out));
    EC_ONE(&out->y);
}

/* r = a1 b2 + a2 b1 from a1 a2 and b1 b2 already known:
 * (a1 + b1)(a2 + b2) - a1 a2 - b1 b2, one multiplication. */
static void EC_FN(cross)(EC_FE *r, const EC_FE *a1, const EC_FE *b1, const EC_FE *a2, const EC_FE *b2,
                         const EC_FE *a1a2, const EC_FE *b1b2) {
    EC_FE s, t;
    EC_ADD(&s, a1, b1);
    EC_ADD(&t, a2, b2);
    EC_MUL(&s, &s, &t);
    EC_ADD(&t, a1a2, b1b2);
    EC_SUB(r, &s, &t);
}

/* The rest of RCB's Algorithm 7 (and 8) once its products are known:
 * xx = X1X2, yy = Y1Y2, zz = Z1Z2, xy = X1Y2 + X2Y1, yz = Y1Z2 + Y2Z1,
 * xz = X1Z2 + X2Z1 (each Z2 may be 1).  xx, yy, zz and xz are scratch. */
static void EC_FN(add_finish)(EC_POINT *out, EC_FE *xx, EC_FE *yy, EC_FE *zz, const EC_FE *xy, const EC_FE *yz,
                              EC_FE *xz) {
    EC_FE x3, y3, z3;
    EC_ADD(&x3, xx, xx);
    EC_ADD(xx, &x3, xx);        /* 3 X1X2 */
    EC_MUL_B3(zz, zz);
    EC_ADD(&z3, yy, zz);
    EC_SUB(yy, yy, zz);
    EC_MUL_B3(xz, xz);
    EC_MUL(&x3, yz, xz);
    EC_MUL(zz, xy, yy);
    EC_SUB(&x3, zz, &x3);
    EC_MUL(xz, xz, xx);
    EC_MUL(yy, yy, &z3);
    EC_ADD(&y3, yy, xz);
    EC_MUL(xx, xx, xy);
    EC_MUL(&z3, &z3, yz);
    EC_ADD(&z3, &z3, xx);
    out->x = x3;
    out->y = y3;
    out->z = z3;
}

/* RCB Algorithm 7: 12M + 2 m_3b */
void EC_FN(add)(EC_POINT *out, const EC_POINT *p, const EC_POINT *q) {
    EC_FE xx, yy, zz, xy, yz, xz;
    EC_MUL(&xx, &p->x, &q->x);
    EC_MUL(&yy, &p->y, &q->y);
    EC_MUL(&zz, &p->z, &q->z);
    EC_FN(cross)(&xy, &p->x, &p->y, &q->x, &q->y, &xx, &yy);
    EC_FN(cross)(&yz, &p->y, &p->z, &q->y, &q->z, &yy, &zz);
    EC_FN(cross)(&xz, &p->x, &p->z, &q->x, &q->z, &xx, &zz);
    EC_FN(add_finish)(out, &xx, &yy, &zz, &xy, &yz, &xz);
}

/* Mixed addition, q affine (Z = 1, not the identity): Algorithm 7 with
 * Z2 = 1 substituted, 11M + 2 m_3b (RCB's Algorithm 8).  Still complete in p. */
void EC_FN(add_affine)(EC_POINT *out, const EC_POINT *p, const EC_POINT *q) {
    EC_FE xx, yy, zz = p->z, xy, yz, xz;
    EC_MUL(&xx, &p->x, &q->x);
    EC_MUL(&yy, &p->y, &q->y);
    EC_FN(cross)(&xy, &p->x, &p->y, &q->x, &q->y, &xx, &yy);
    EC_MUL(&yz, &q->y, &p->z);
    EC_ADD(&yz, &yz, &p->y);    /* Y1 + Y2Z1 */
    EC_MUL(&xz, &q->x, &p->z);
    EC_ADD(&xz, &xz, &p->x);    /* X1 + X2Z1 */
    EC_FN(add_finish)(out, &xx, &yy, &zz, &xy, &yz, &xz);
}

/* RCB Algorithm 9: 6M + 2S + 1 m_3b */
void EC_FN(dbl)(EC_POINT *out, const EC_POINT *p) {
    EC_FE t0, t1, t2, x3, y3, z3;
    EC_SQR(&t0, &p->y);
    EC_ADD(&z3, &t0, &t0);
    EC_ADD(&z3, &z3, &z3);
    EC_ADD(&z3, &z3, &z3);      /* 8 Y^2 */
    EC_MUL(&t1, &p->y, &p->z);
    EC_SQR(&t2, &p->z);
    EC_MUL_B3(&t2, &t2);
    EC_MUL(&x3, &t2, &z3);
    EC_ADD(&y3, &t0, &t2);
    EC_MUL(&z3, &t1, &z3);
    EC_ADD(&t1, &t2, &t2);
    EC_ADD(&t2, &t1, &t2);
    EC_SUB(&t0, &t0, &t2);
    EC_MUL(&y3, &t0, &y3);
    EC_ADD(&y3, &x3, &y3);
    EC_MUL(&t1, &p->x, &p->y);
    EC_MUL(&x3, &t0, &t1);
    EC_ADD(&x3, &x3, &x3);
    out->x = x3;
    out->y = y3;
    out->z = z3;
}

void EC_FN(neg)(EC_POINT *out, const EC_POINT *p) {
    out->x = p->x;
    EC_NEG(&out->y, &p->y);
    out->z = p->z;
}

/* (X1:Y1:Z1) == (X2:Y2:Z2)  iff  X1Z2 == X2Z1 and Y1Z2 == Y2Z1 (Y != 0 for
 * every valid point, so this also separates the identity). */
int EC_FN(eq)(const EC_POINT *p, const EC_POINT *q) {
    EC_FE a, b, c, d;
    EC_MUL(&a, &p->x, &q->z);
    EC_MUL(&b, &q->x, &p->z);
    EC_MUL(&c, &p->y, &q->z);
    EC_MUL(&d, &q->y, &p->z);
    return (int)(EC_EQ_MASK(&a, &b) & EC_EQ_MASK(&c, &d) & 1);
}

int EC_FN(is_identity)(const EC_POINT *p) {
    return (int)(EC_ZERO_MASK(&p->z) & 1);
}

void EC_FN(normalize)(EC_POINT *out, const EC_POINT *p) {
    EC_FE zi, one;
    EC_POINT r, id;
    uint64_t inf = EC_ZERO_MASK(&p->z);
    EC_INV(&zi, &p->z);
    EC_MUL(&r.x, &p->x, &zi);
    EC_MUL(&r.y, &p->y, &zi);
    EC_ONE(&one);
    r.z = one;
    EC_FN(identity)(&id);
    ENC_CMOV(&r, &id, inf);
    *out = r;
}

/* Y^2 Z == X^3 + b Z^3, and not (0:0:0) */
int EC_FN(is_on_curve)(const EC_POINT *p) {
    EC_FE l, r, t;
    EC_SQR(&l, &p->y);
    EC_MUL(&l, &l, &p->z);
    EC_SQR(&r, &p->x);
    EC_MUL(&r, &r, &p->x);
    EC_SQR(&t, &p->z);
    EC_MUL(&t, &t, &p->z);
    EC_MUL(&t, &t, &EC_CURVE(B));
    EC_ADD(&r, &r, &t);
    uint64_t degenerate = EC_ZERO_MASK(&p->y) & EC_ZERO_MASK(&p->z);
    return (int)(EC_EQ_MASK(&l, &r) & ~degenerate & 1);
}

/* Fixed 4-bit windows over all 256 scalar bits; every window reads the whole
 * table with masks, so neither branches nor addresses depend on k. */
void EC_FN(mul)(EC_POINT *out, const EC_POINT *p, const enc_fr *k) {
    EC_POINT table[16], acc, t;
    EC_FN(identity)(&table[0]);
    table[1] = *p;
    for (int i = 2; i < 16; i++) {
        if (i & 1) EC_FN(add)(&table[i], &table[i - 1], p);
        else EC_FN(dbl)(&table[i], &table[i / 2]);
    }
    EC_FN(identity)(&acc);
    for (int w = 63; w >= 0; w--) {
        for (int j = 0; j < 4; j++) EC_FN(dbl)(&acc, &acc);
        uint64_t digit = (k->l[w / 16] >> (4 * (w % 16))) & 15;
        EC_FN(identity)(&t);
        for (uint64_t i = 0; i < 16; i++) ENC_CMOV(&t, &table[i], enc_mask_zero(i ^ digit));
        EC_FN(add)(&acc, &acc, &t);
    }
    *out = acc;
}

/* Plain double-and-add over the bits of a public scalar. */
void EC_FN(mul_vartime)(EC_POINT *out, const EC_POINT *p, const uint64_t *k, size_t nlimbs) {
    EC_POINT acc, base = *p;
    int started = 0;
    EC_FN(identity)(&acc);
    for (size_t i = nlimbs * 64; i-- > 0;) {
        if (started) EC_FN(dbl)(&acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1) {
            EC_FN(add)(&acc, &acc, &base);
            started = 1;
        }
    }
    *out = acc;
}

/* r * P == O: the definition, kept as the reference the fast endomorphism
 * tests in g1.c / g2.c are checked against.  VT; P is public. */
int EC_FN(in_subgroup_slow)(const EC_POINT *p) {
    EC_POINT t;
    EC_FN(mul_vartime)(&t, p, ENC_FR_R, 4);
    return EC_FN(is_identity)(&t);
}
