// A Lua pattern matcher written from the Lua 5.4 manual (§6.4.1, "Patterns"). Invariant: no match takes
// a step the budget does not count. It gives the results of
// Lua's own `lstrlib.c` and its error messages, but counting its steps: a backtracking pattern on a
// long subject is stopped by the instruction budget or the deadline like any Lua loop, where Lua's
// matcher would run for minutes without executing a single instruction.
//
// One step is one attempt to match at a position, or one character taken by a repetition, a balance
// (`%b`) or a back-reference scan; steps are charged to the budget as instructions.

#include "matcher.h"
#include <ctype.h>
#include <string.h>

/// Nested matching calls (captures, `?`, repetitions) allowed, as Lua's `MAXCCALLS`.
enum { moonblade_max_match_depth = 200 };
/// Steps counted between two charges to the limits.
enum { moonblade_match_chunk = 1024 };

void moonblade_match_init(
    moonblade_match *match, lua_State *L, const char *subject, size_t subject_length, const char *pattern,
    size_t pattern_length
) {
    match->L = L;
    match->subject = subject;
    match->subject_end = subject + subject_length;
    match->pattern_end = pattern + pattern_length;
    match->countdown = moonblade_match_chunk;
    match->unchecked = 0;
    moonblade_match_reset(match);
}

void moonblade_match_reset(moonblade_match *match) {
    match->level = 0;
    match->depth_left = moonblade_max_match_depth;
}

void moonblade_match_count(moonblade_match *match, int steps) {
    match->countdown -= steps;
    if (match->countdown > 0) return;
    int counted = moonblade_match_chunk - match->countdown;
    match->countdown = moonblade_match_chunk;
    match->unchecked = 0;
    moonblade_charge_steps(match->L, counted);
}

void moonblade_match_settle(moonblade_match *match) {
    int counted = moonblade_match_chunk - match->countdown;
    match->countdown = moonblade_match_chunk;
    // A gsub of millions of short matches settles after each: it checks the limits every chunk of them.
    if ((match->unchecked += counted) >= moonblade_match_chunk) {
        match->unchecked = 0;
        moonblade_charge_steps(match->L, counted);
    } else {
        moonblade_count_steps(match->L, counted);
    }
}

// MARK: - Single characters

/// The end of the single-character class that starts at `p` (`x`, `.`, `%a`, `[set]`).
static const char *find_class_end(moonblade_match *match, const char *p) {
    char c = *p++;
    if (c == '%') {
        if (p == match->pattern_end) luaL_error(match->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c == '[') {
        if (*p == '^') p++;
        do {  // the first character of a set may be ']' itself, so it is taken before looking for the end
            if (p == match->pattern_end) luaL_error(match->L, "malformed pattern (missing ']')");
            c = *p++;
            if (c == '%' && p < match->pattern_end) p++;  // an escape such as `%]`
        } while (*p != ']');
        return p + 1;
    }
    return p;
}

/// Whether `c` is in the class `%letter` (a letter in upper case is the complement); for any other
/// `letter`, whether `c` is that character (`%.` is a dot).
static int class_contains(int c, int letter) {
    int contains;
    switch (tolower(letter)) {
    case 'a': contains = isalpha(c); break;
    case 'c': contains = iscntrl(c); break;
    case 'd': contains = isdigit(c); break;
    case 'g': contains = isgraph(c); break;
    case 'l': contains = islower(c); break;
    case 'p': contains = ispunct(c); break;
    case 's': contains = isspace(c); break;
    case 'u': contains = isupper(c); break;
    case 'w': contains = isalnum(c); break;
    case 'x': contains = isxdigit(c); break;
    case 'z': contains = c == 0; break;  // not in the 5.4 manual, but Lua 5.4's matcher still has it
    default: return letter == c;
    }
    return isupper(letter) ? !contains : contains;
}

/// Whether `c` is in the set from `set` (its '[') to `last` (its ']').
static int set_contains(int c, const char *set, const char *last) {
    int inside = 1;
    if (set[1] == '^') {
        inside = 0;
        set++;
    }
    while (++set < last) {
        if (*set == '%') {
            set++;
            if (class_contains(c, (unsigned char)*set)) return inside;
        } else if (set[1] == '-' && set + 2 < last) {
            if ((unsigned char)set[0] <= c && c <= (unsigned char)set[2]) return inside;
            set += 2;
        } else if ((unsigned char)*set == c) {
            return inside;
        }
    }
    return !inside;
}

/// Whether the subject character at `at` is in the class from `p` to `class_end`.
static int single_match(moonblade_match *match, const char *at, const char *p, const char *class_end) {
    if (at >= match->subject_end) return 0;
    int c = (unsigned char)*at;
    switch (*p) {
    case '.': return 1;
    case '%': return class_contains(c, (unsigned char)p[1]);
    case '[': return set_contains(c, p, class_end - 1);
    default: return (unsigned char)*p == c;
    }
}

// MARK: - Pattern items

static const char *match_item(moonblade_match *match, const char *at, const char *p);

/// `%bxy` (`p` points at `x`): a balanced run from an `x` to its `y`.
static const char *match_balance(moonblade_match *match, const char *at, const char *p) {
    if (p >= match->pattern_end - 1) luaL_error(match->L, "malformed pattern (missing arguments to '%%b')");
    if (*at != *p) return NULL;
    char open = p[0], close = p[1];
    int depth = 1;
    while (++at < match->subject_end) {
        moonblade_match_count(match, 1);
        if (*at == close) {
            if (--depth == 0) return at + 1;
        } else if (*at == open) {
            depth++;
        }
    }
    return NULL;
}

/// `x*` (and `x+` after its first `x`): the longest run of the class that lets the rest match.
static const char *match_longest(moonblade_match *match, const char *at, const char *p, const char *class_end) {
    ptrdiff_t run = 0;
    while (single_match(match, at + run, p, class_end)) {
        run++;
        moonblade_match_count(match, 1);
    }
    for (; run >= 0; run--) {
        const char *end = match_item(match, at + run, class_end + 1);
        if (end != NULL) return end;
    }
    return NULL;
}

/// `x-`: the shortest run of the class that lets the rest match.
static const char *match_shortest(moonblade_match *match, const char *at, const char *p, const char *class_end) {
    for (;;) {
        const char *end = match_item(match, at, class_end + 1);
        if (end != NULL) return end;
        if (!single_match(match, at, p, class_end)) return NULL;
        at++;
    }
}

/// `(`, or `()` for a position: opens a capture and matches the rest.
static const char *open_capture(moonblade_match *match, const char *at, const char *p, ptrdiff_t kind) {
    if (match->level >= moonblade_max_captures) luaL_error(match->L, "too many captures");
    match->captures[match->level].start = at;
    match->captures[match->level].length = kind;
    match->level++;
    const char *end = match_item(match, at, p);
    if (end == NULL) match->level--;
    return end;
}

/// `)`: closes the innermost open capture and matches the rest.
static const char *close_capture(moonblade_match *match, const char *at, const char *p) {
    int level = match->level - 1;
    while (level >= 0 && match->captures[level].length != moonblade_capture_unfinished) level--;
    if (level < 0) luaL_error(match->L, "invalid pattern capture");
    match->captures[level].length = at - match->captures[level].start;
    const char *end = match_item(match, at, p);
    if (end == NULL) match->captures[level].length = moonblade_capture_unfinished;
    return end;
}

/// `%1`–`%9`: the text of a closed capture again.
static const char *match_back_reference(moonblade_match *match, const char *at, int digit) {
    int index = digit - '1';
    if (index < 0 || index >= match->level || match->captures[index].length == moonblade_capture_unfinished) {
        luaL_error(match->L, "invalid capture index %%%d", index + 1);
    }
    size_t length = (size_t)match->captures[index].length;  // a position capture never matches (as in Lua)
    if ((size_t)(match->subject_end - at) < length) return NULL;
    moonblade_match_count(match, (int)(length / 64));
    return memcmp(match->captures[index].start, at, length) == 0 ? at + length : NULL;
}

/// Matches the pattern from `p` at `at`: the end of the match, or NULL.
static const char *match_item(moonblade_match *match, const char *at, const char *p) {
    if (match->depth_left-- == 0) luaL_error(match->L, "pattern too complex");
    while (at != NULL && p != match->pattern_end) {
        moonblade_match_count(match, 1);
        switch (*p) {
        case '(':
            if (p[1] == ')') {
                at = open_capture(match, at, p + 2, moonblade_capture_position);
            } else {
                at = open_capture(match, at, p + 1, moonblade_capture_unfinished);
            }
            p = match->pattern_end;  // the rest was matched by the call
            continue;
        case ')':
            at = close_capture(match, at, p + 1);
            p = match->pattern_end;
            continue;
        case '$':
            if (p + 1 == match->pattern_end) {  // an anchor only at the very end
                at = at == match->subject_end ? at : NULL;
                p = match->pattern_end;
                continue;
            }
            break;
        case '%':
            if (p[1] == 'b') {
                at = match_balance(match, at, p + 2);
                p += 4;
                continue;
            }
            if (p[1] == 'f') {
                p += 2;
                if (*p != '[') luaL_error(match->L, "missing '[' after '%%f' in pattern");
                const char *set_end = find_class_end(match, p);
                int before = at == match->subject ? '\0' : (unsigned char)at[-1];
                // At the end of the subject the character after is '\0': Lua strings end with one.
                if (set_contains(before, p, set_end - 1) ||
                    !set_contains((unsigned char)*at, p, set_end - 1)) {
                    at = NULL;
                }
                p = set_end;
                continue;
            }
            if (isdigit((unsigned char)p[1])) {
                at = match_back_reference(match, at, (unsigned char)p[1]);
                p += 2;
                continue;
            }
            break;
        default:
            break;
        }
        // A single-character class, with an optional repetition after it.
        const char *class_end = find_class_end(match, p);
        char suffix = class_end < match->pattern_end ? *class_end : '\0';
        if (!single_match(match, at, p, class_end)) {
            if (suffix == '*' || suffix == '?' || suffix == '-') {  // none is fine
                p = class_end + 1;
            } else {
                at = NULL;
            }
            continue;
        }
        switch (suffix) {
        case '?': {
            const char *end = match_item(match, at + 1, class_end + 1);
            if (end != NULL) {
                at = end;
                p = match->pattern_end;
            } else {
                p = class_end + 1;
            }
            continue;
        }
        case '+':
            at = match_longest(match, at + 1, p, class_end);
            p = match->pattern_end;
            continue;
        case '*':
            at = match_longest(match, at, p, class_end);
            p = match->pattern_end;
            continue;
        case '-':
            at = match_shortest(match, at, p, class_end);
            p = match->pattern_end;
            continue;
        default:
            at++;
            p = class_end;
            continue;
        }
    }
    match->depth_left++;
    return at;
}

const char *moonblade_match_at(moonblade_match *match, const char *at, const char *pattern) {
    return match_item(match, at, pattern);
}
