// `string.find`, `string.match`, `string.gmatch` and `string.gsub` on the step-counting matcher,
// with the arguments, results and error messages of Lua 5.4's own. Invariant: every step of their
// matching is charged to the running guest call's budget.

#include "matcher.h"
#include <lua5.4/lualib.h>
#include <string.h>

/// The 0-based start for a 1-based, possibly negative `init` into a subject of `length` bytes.
static size_t start_offset(lua_Integer init, size_t length) {
    if (init > 0) return (size_t)init - 1;
    if (init == 0 || init < -(lua_Integer)length) return 0;
    return length + (size_t)init;
}

/// The subject (argument 1) and the pattern (argument 2) every pattern function starts with.
typedef struct moonblade_search {
    const char *subject;
    size_t length;
    const char *pattern;
    size_t pattern_length;
} moonblade_search;

static moonblade_search check_search(lua_State *L) {
    moonblade_search search;
    search.subject = luaL_checklstring(L, 1, &search.length);
    search.pattern = luaL_checklstring(L, 2, &search.pattern_length);
    return search;
}

// MARK: - Captures

/// The text of capture `index` (the whole match `start`..`end` if there are no captures and index
/// is 0). A position capture pushes its position and returns `moonblade_capture_position`.
static ptrdiff_t capture_text(
    moonblade_match *match, int index, const char *start, const char *end, const char **text
) {
    if (index >= match->level) {
        if (index != 0) luaL_error(match->L, "invalid capture index %%%d", index + 1);
        *text = start;
        return end - start;
    }
    ptrdiff_t length = match->captures[index].length;
    *text = match->captures[index].start;
    if (length == moonblade_capture_unfinished) luaL_error(match->L, "unfinished capture");
    if (length == moonblade_capture_position) {
        lua_pushinteger(match->L, (match->captures[index].start - match->subject) + 1);
    }
    return length;
}

static void push_capture(moonblade_match *match, int index, const char *start, const char *end) {
    const char *text;
    ptrdiff_t length = capture_text(match, index, start, end, &text);
    if (length != moonblade_capture_position) lua_pushlstring(match->L, text, (size_t)length);
}

/// Pushes every capture (or the whole match when there are none and `start` is given); returns how many.
static int push_captures(moonblade_match *match, const char *start, const char *end) {
    int count = (match->level == 0 && start != NULL) ? 1 : match->level;
    luaL_checkstack(match->L, count, "too many captures");
    for (int index = 0; index < count; index++) push_capture(match, index, start, end);
    return count;
}

// MARK: - find and match

/// Whether `pattern` has none of the characters that make it more than plain text.
static int is_plain(const char *pattern, size_t length) {
    size_t done = 0;
    do {  // strpbrk stops at a '\0': look past each embedded one
        if (strpbrk(pattern + done, "^$*+?.([%-")) return 0;
        done += strlen(pattern + done) + 1;
    } while (done <= length);
    return 1;
}

/// The first occurrence of `needle` in `haystack`, counting the comparisons as steps.
static const char *find_plain(
    moonblade_match *match, const char *haystack, size_t length, const char *needle, size_t needle_length
) {
    if (needle_length == 0) return haystack;
    if (needle_length > length) return NULL;
    const char *last = haystack + (length - needle_length);  // the last place it could start
    const char *at = haystack;
    while (at <= last && (at = memchr(at, needle[0], (size_t)(last - at) + 1)) != NULL) {
        moonblade_match_count(match, 1 + (int)(needle_length / 64));
        if (memcmp(at + 1, needle + 1, needle_length - 1) == 0) return at;
        at++;
    }
    return NULL;
}

static int find_or_match(lua_State *L, int find) {
    moonblade_search search = check_search(L);
    const char *subject = search.subject, *pattern = search.pattern;
    size_t length = search.length, pattern_length = search.pattern_length;
    size_t start = start_offset(luaL_optinteger(L, 3, 1), length);
    if (start > length) {
        luaL_pushfail(L);
        return 1;
    }
    moonblade_match match;
    if (find && (lua_toboolean(L, 4) || is_plain(pattern, pattern_length))) {
        moonblade_match_init(&match, L, subject, length, pattern, pattern_length);
        const char *found = find_plain(&match, subject + start, length - start, pattern, pattern_length);
        moonblade_match_settle(&match);
        if (found == NULL) {
            luaL_pushfail(L);
            return 1;
        }
        lua_pushinteger(L, (found - subject) + 1);
        lua_pushinteger(L, (lua_Integer)((found - subject) + pattern_length));
        return 2;
    }
    int anchored = *pattern == '^';
    if (anchored) {
        pattern++;
        pattern_length--;
    }
    moonblade_match_init(&match, L, subject, length, pattern, pattern_length);
    const char *at = subject + start;
    do {
        moonblade_match_reset(&match);
        const char *end = moonblade_match_at(&match, at, pattern);
        if (end != NULL) {
            moonblade_match_settle(&match);
            if (!find) return push_captures(&match, at, end);
            lua_pushinteger(L, (at - subject) + 1);
            lua_pushinteger(L, end - subject);
            return push_captures(&match, NULL, NULL) + 2;
        }
    } while (at++ < match.subject_end && !anchored);
    moonblade_match_settle(&match);
    luaL_pushfail(L);
    return 1;
}

static int str_find(lua_State *L) { return find_or_match(L, 1); }

static int str_match(lua_State *L) { return find_or_match(L, 0); }

// MARK: - gmatch

/// The state of a `gmatch` iteration (upvalue 3 of the iterator; 1 and 2 keep the strings alive).
typedef struct moonblade_iteration {
    moonblade_match match;
    const char *next;        // where the next attempt starts
    const char *pattern;
    const char *last_end;    // the end of the last match: an empty match there is skipped
} moonblade_iteration;

static int str_gmatch_next(lua_State *L) {
    moonblade_iteration *iteration = (moonblade_iteration *)lua_touserdata(L, lua_upvalueindex(3));
    moonblade_match *match = &iteration->match;
    match->L = L;  // the iterator may be called from another coroutine
    for (const char *at = iteration->next; at <= match->subject_end; at++) {
        moonblade_match_reset(match);
        const char *end = moonblade_match_at(match, at, iteration->pattern);
        if (end != NULL && end != iteration->last_end) {
            iteration->next = iteration->last_end = end;
            moonblade_match_settle(match);
            return push_captures(match, at, end);
        }
    }
    moonblade_match_settle(match);
    return 0;
}

static int str_gmatch(lua_State *L) {
    moonblade_search search = check_search(L);
    size_t start = start_offset(luaL_optinteger(L, 3, 1), search.length);
    lua_settop(L, 2);  // the strings become upvalues of the iterator, so they stay alive
    moonblade_iteration *iteration = (moonblade_iteration *)lua_newuserdatauv(L, sizeof(moonblade_iteration), 0);
    if (start > search.length) start = search.length + 1;  // no match at all
    moonblade_match_init(
        &iteration->match, L, search.subject, search.length, search.pattern, search.pattern_length);
    iteration->next = search.subject + start;
    iteration->pattern = search.pattern;
    iteration->last_end = NULL;
    lua_pushcclosure(L, str_gmatch_next, 3);
    return 1;
}

// MARK: - gsub

/// Appends the replacement string (argument 3) for the match `start`..`end`, expanding `%0`–`%9` and `%%`.
static void add_expanded(moonblade_match *match, luaL_Buffer *buffer, const char *start, const char *end) {
    lua_State *L = match->L;
    size_t length;
    const char *replacement = lua_tolstring(L, 3, &length);
    const char *escape;
    while ((escape = memchr(replacement, '%', length)) != NULL) {
        luaL_addlstring(buffer, replacement, (size_t)(escape - replacement));
        escape++;
        if (*escape == '%') {
            luaL_addchar(buffer, '%');
        } else if (*escape == '0') {
            luaL_addlstring(buffer, start, (size_t)(end - start));
        } else if (*escape >= '1' && *escape <= '9') {
            const char *text;
            ptrdiff_t captured = capture_text(match, *escape - '1', start, end, &text);
            if (captured == moonblade_capture_position) {
                luaL_addvalue(buffer);  // the position it pushed
            } else {
                luaL_addlstring(buffer, text, (size_t)captured);
            }
        } else {
            luaL_error(L, "invalid use of '%c' in replacement string", '%');
        }
        length -= (size_t)(escape + 1 - replacement);
        replacement = escape + 1;
    }
    luaL_addlstring(buffer, replacement, length);
}

/// Appends the replacement for the match `start`..`end`; returns whether it changed the text.
static int add_replacement(
    moonblade_match *match, luaL_Buffer *buffer, const char *start, const char *end, int kind
) {
    lua_State *L = match->L;
    if (kind == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int count = push_captures(match, start, end);
        lua_call(L, count, 1);
    } else if (kind == LUA_TTABLE) {
        push_capture(match, 0, start, end);
        lua_gettable(L, 3);
    } else {
        add_expanded(match, buffer, start, end);
        return 1;
    }
    if (!lua_toboolean(L, -1)) {  // nil or false: keep the original text
        lua_pop(L, 1);
        luaL_addlstring(buffer, start, (size_t)(end - start));
        return 0;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(buffer);
    return 1;
}

static int str_gsub(lua_State *L) {
    moonblade_search search = check_search(L);
    const char *subject = search.subject, *pattern = search.pattern;
    size_t pattern_length = search.pattern_length;
    int kind = lua_type(L, 3);
    lua_Integer most = luaL_optinteger(L, 4, (lua_Integer)search.length + 1);
    luaL_argexpected(L, kind == LUA_TNUMBER || kind == LUA_TSTRING || kind == LUA_TFUNCTION || kind == LUA_TTABLE,
                     3, "string/function/table");
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    int anchored = *pattern == '^';
    if (anchored) {
        pattern++;
        pattern_length--;
    }
    moonblade_match match;
    moonblade_match_init(&match, L, subject, search.length, pattern, pattern_length);
    const char *at = subject;
    const char *last_end = NULL;
    lua_Integer count = 0;
    int changed = 0;
    while (count < most) {
        moonblade_match_reset(&match);
        const char *end = moonblade_match_at(&match, at, pattern);
        if (end != NULL && end != last_end) {
            count++;
            moonblade_match_settle(&match);  // the replacement may run Lua code, or another match
            changed = add_replacement(&match, &buffer, at, end, kind) | changed;
            at = last_end = end;
        } else if (at < match.subject_end) {
            luaL_addchar(&buffer, *at++);
        } else {
            break;
        }
        if (anchored) break;
    }
    moonblade_match_settle(&match);
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&buffer, at, (size_t)(match.subject_end - at));
        luaL_pushresult(&buffer);
    }
    lua_pushinteger(L, count);
    return 2;
}

void moonblade_install_pattern_functions(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"find", str_find},   {"match", str_match},
        {"gmatch", str_gmatch}, {"gsub", str_gsub},
        {NULL, NULL},
    };
    lua_getglobal(L, LUA_STRLIBNAME);
    luaL_setfuncs(L, functions, 0);
    lua_pop(L, 1);
}
