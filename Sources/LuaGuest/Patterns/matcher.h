// A Lua pattern matcher (Lua 5.4 manual, §6.4.1) that counts its steps against the guest limits.

#ifndef MOONBLADE_LUA_GUEST_MATCHER_H
#define MOONBLADE_LUA_GUEST_MATCHER_H

#include "../guest.h"

/// At most this many captures in one pattern, as in Lua (`LUA_MAXCAPTURES`).
enum { moonblade_max_captures = 32 };
/// The length of a capture that is still open, and of a position capture `()`.
enum { moonblade_capture_unfinished = -1, moonblade_capture_position = -2 };

/// One match of a pattern against a subject, in progress.
typedef struct moonblade_match {
    const char *subject;
    const char *subject_end;
    const char *pattern_end;
    lua_State *L;
    int depth_left;  // nested matching calls allowed before "pattern too complex"
    int level;       // captures opened so far
    int countdown;   // steps before the next charge to the limits
    int unchecked;   // steps settled since the limits were last checked (many short matches)
    struct {
        const char *start;
        ptrdiff_t length;  // or moonblade_capture_unfinished / moonblade_capture_position
    } captures[moonblade_max_captures];
} moonblade_match;

/// Prepares `match` for `pattern` (without a leading anchor) against `subject`.
void moonblade_match_init(
    moonblade_match *match, lua_State *L, const char *subject, size_t subject_length, const char *pattern,
    size_t pattern_length);

/// Forgets the captures of the last attempt.
void moonblade_match_reset(moonblade_match *match);

/// Matches the pattern from `pattern` against the subject at `at`; returns the end of the match or NULL.
const char *moonblade_match_at(moonblade_match *match, const char *at, const char *pattern);

/// Counts `steps` more steps of work, charging them to the limits in chunks.
void moonblade_match_count(moonblade_match *match, int steps);

/// Charges the steps counted since the last charge, without checking the limits (the next check will).
void moonblade_match_settle(moonblade_match *match);

#endif
