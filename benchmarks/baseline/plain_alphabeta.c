/* A plain double-dummy alpha-beta in C: the yardstick issue 4 measures kraken-solver against.
 *
 * Objective `points` (RULES.md rule 24: D's card points, last-trick 10 included; no roem),
 * rules `klaverjas-rotterdam` without trick roem: rules 7-8 with trump_rule rotterdam and
 * undertrump forced (rule 9a).  N (seat 0) leads trick 1, so D is N-S.
 *
 * What "plain" means here: a fail-soft alpha-beta over the full window, a transposition table
 * at trick boundaries holding lower and upper bounds (key: the cards left and the leader),
 * and a simple static move ordering (leading: highest power first; following: a card that
 * takes the trick over for the mover's side, cheapest such first, then the rest, fewest
 * points first).  No null windows, no equivalent cards, no bounds, no killers.
 *
 * Input on stdin, one (deal, trump) a line: "h0 h1 h2 h3 trump", the hands of N E S W as
 * 32-bit card masks (bit suit*8 + rank, ranks 7 8 9 T J Q K A = 0..7, suits S H D C = 0..3).
 * Output, a line each: "value nodes microseconds".  A line that is not five whole numbers, a
 * trump outside 0..3, or hands that overlap or differ in size (1 to 8 cards) stop the program
 * with a message on stderr naming the line, exit status 2.
 *
 * Build: gcc -O2 -o plain_alphabeta plain_alphabeta.c
 * Used by benchmarks/baseline_ratio.py, which checks its values against kraken-solver's.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define INF 100000
#define TT_BITS 20

static const int TRUMP_POINTS[8] = {0, 0, 14, 10, 20, 3, 4, 11};
static const int PLAIN_POINTS[8] = {0, 0, 0, 10, 2, 3, 4, 11};
static const int TRUMP_POWER[8] = {0, 1, 6, 4, 7, 2, 3, 5};
static const int PLAIN_POWER[8] = {0, 1, 2, 6, 3, 4, 5, 7};

static int pts[32], pw[32], trump;
static uint32_t hands[4];
static long long nodes;

typedef struct { uint64_t key; int32_t lo, hi; uint32_t gen; } Entry;
static Entry tt[1 << TT_BITS];
static uint32_t gen;

static int suit(int c) { return c >> 3; }

static int lowest(uint32_t m) { return __builtin_ctz(m); }

/* does c beat w, the card winning the trick so far? (rule 7: w is of the suit led or a trump) */
static int beats(int c, int w) {
    if (suit(c) == suit(w)) return pw[c] > pw[w];
    return suit(c) == trump;
}

/* cards of `hand` above card w in power (same suit as w) */
static uint32_t above(uint32_t hand, int w) {
    uint32_t r = 0, m = hand & (0xFFu << (8 * suit(w)));
    while (m) {
        int c = lowest(m);
        m &= m - 1;
        if (pw[c] > pw[w]) r |= 1u << c;
    }
    return r;
}

/* rule 8 with trump_rule rotterdam and undertrump forced (rule 9a) */
static uint32_t legal(uint32_t hand, int led, int w) {
    uint32_t of_led = hand & (0xFFu << (8 * led));
    uint32_t trumps = hand & (0xFFu << (8 * trump));
    if (of_led) {
        if (led != trump) return of_led;
        uint32_t up = above(of_led, w);
        return up ? up : of_led;
    }
    if (!trumps) return hand;
    if (suit(w) == trump) {
        uint32_t up = above(trumps, w);
        return up ? up : trumps;
    }
    return trumps;
}

static int order(uint32_t m, int n, int w, int wseat, int seat, int *out) {
    int sc[8], k = 0;
    while (m) {
        int c = lowest(m), s, j;
        m &= m - 1;
        if (n == 0) {
            s = pw[c] + (suit(c) == trump ? 8 : 0);
        } else if (beats(c, w) && (wseat & 1) != (seat & 1)) {
            s = 100 - pts[c];           /* take the trick over: cheapest winner first */
        } else {
            s = -pts[c];
        }
        for (j = k; j > 0 && sc[j - 1] < s; j--) {
            sc[j] = sc[j - 1];
            out[j] = out[j - 1];
        }
        sc[j] = s;
        out[j] = c;
        k++;
    }
    return k;
}

/* D's points from here (the trick in progress, `n` cards of it on the table, included) */
static int search(int leader, int n, int led, int w, int wseat, int tp, int alpha, int beta) {
    nodes++;
    uint32_t left = hands[0] | hands[1] | hands[2] | hands[3];
    Entry *e = NULL;
    int a0 = alpha, b0 = beta;
    uint64_t key = 0;
    if (n == 0) {
        if (!left) return 0;
        key = (uint64_t)left | ((uint64_t)leader << 32);
        uint64_t h = key * 0x9E3779B97F4A7C15ull;
        e = &tt[h >> (64 - TT_BITS)];
        if (e->gen == gen && e->key == key) {
            if (e->lo >= beta || e->lo == e->hi) return e->lo;
            if (e->hi <= alpha) return e->hi;
            if (e->lo > alpha) alpha = e->lo;
            if (e->hi < beta) beta = e->hi;
            a0 = alpha;
            b0 = beta;
        }
    }
    int seat = (leader + n) & 3;
    int maxi = (seat & 1) == 0;
    uint32_t m = n == 0 ? hands[seat] : legal(hands[seat], led, w);
    int moves[8];
    int k = order(m, n, w, wseat, seat, moves);
    int best = maxi ? -INF : INF;
    for (int i = 0; i < k && alpha < beta; i++) {
        int c = moves[i], v;
        hands[seat] ^= 1u << c;
        int l2 = n == 0 ? suit(c) : led;
        int w2 = w, ws2 = wseat;
        if (n == 0 || beats(c, w)) {
            w2 = c;
            ws2 = seat;
        }
        if (n == 3) {
            int p = tp + pts[c];
            if (!(left & ~(1u << c))) p += 10;
            int add = (ws2 & 1) == 0 ? p : 0;
            v = add + search(ws2, 0, 0, 0, 0, 0, alpha - add, beta - add);
        } else {
            v = search(leader, n + 1, l2, w2, ws2, tp + pts[c], alpha, beta);
        }
        hands[seat] ^= 1u << c;
        if (maxi) {
            if (v > best) best = v;
            if (v > alpha) alpha = v;
        } else {
            if (v < best) best = v;
            if (v < beta) beta = v;
        }
    }
    if (e) {
        int lo = -INF, hi = INF;
        if (e->gen == gen && e->key == key) {
            lo = e->lo;
            hi = e->hi;
        }
        if (best <= a0) { if (best < hi) hi = best; }
        else if (best >= b0) { if (best > lo) lo = best; }
        else { lo = best; hi = best; }
        e->key = key;
        e->lo = lo;
        e->hi = hi;
        e->gen = gen;
    }
    return best;
}

static int bad(long line, const char *what) {
    fprintf(stderr, "plain_alphabeta: stdin line %ld: %s\n", line, what);
    return 2;
}

int main(void) {
    char buf[512];
    long line = 0;
    while (fgets(buf, sizeof buf, stdin)) {
        unsigned long long h[4];
        int t, used = 0;
        line++;
        if (sscanf(buf, "%llu %llu %llu %llu %d %n", &h[0], &h[1], &h[2], &h[3], &t, &used) != 5
                || buf[used] != '\0')
            return bad(line, "expected five whole numbers: h0 h1 h2 h3 trump");
        if (t < 0 || t > 3) return bad(line, "trump must be 0..3 (S H D C)");
        int n = __builtin_popcountll(h[0]);
        for (int p = 0; p < 4; p++) {
            if (h[p] >> 32 || __builtin_popcountll(h[p]) != n || n < 1 || n > 8)
                return bad(line, "each hand must be a 32-bit card mask of the same 1 to 8 cards");
            for (int q = 0; q < p; q++)
                if (h[p] & h[q]) return bad(line, "two hands hold the same card");
        }
        trump = t;
        for (int c = 0; c < 32; c++) {
            int r = c & 7;
            pts[c] = suit(c) == trump ? TRUMP_POINTS[r] : PLAIN_POINTS[r];
            pw[c] = suit(c) == trump ? TRUMP_POWER[r] : PLAIN_POWER[r];
        }
        for (int p = 0; p < 4; p++) hands[p] = (uint32_t)h[p];
        gen++;
        nodes = 0;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        int v = search(0, 0, 0, 0, 0, 0, -INF, INF);
        clock_gettime(CLOCK_MONOTONIC, &b);
        long long us = (b.tv_sec - a.tv_sec) * 1000000LL + (b.tv_nsec - a.tv_nsec) / 1000;
        printf("%d %lld %lld\n", v, nodes, us);
        fflush(stdout);
    }
    return 0;
}
