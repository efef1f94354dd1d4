// What the files of the resident state's machinery share (see machinery.c for the whole): the
// machinery and draft records, their user values, and small helpers every file uses, inline so that
// a draft's metamethods, the hot path of a Lua updater, pay no call for them. Functions one file
// gives the others are named `rs_*`; everything else is `static` to its file and unprefixed, as in
// Lua's own C (LuaGuest names its statics the same way).

#ifndef MOONBLADE_RESIDENT_STATE_INTERNAL_H
#define MOONBLADE_RESIDENT_STATE_INTERNAL_H

#include "CResidentState.h"
#include <lua5.4/lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>

/// How deep finishing follows nested tables: the coders' limit (LuaCoding.maximumDepth).
enum { MAXIMUM_DEPTH = 512 };

/// The machinery: every function's upvalue 1. Its user values are the tables below.
typedef struct state_machine {
    lua_Integer live_session;  // the session whose drafts are writable; 0 between updaters
    lua_Integer last_session;
    int depth;                 // nesting followed by the finish under way
    lua_Integer fresh_count;   // how many tables `fresh` marks (0: no table made yet)
    lua_Integer change_count;  // entries in CHANGES, which the next session clears (or drops, if many)
    int has_root_changes;      // ROOT_CHANGES holds the last session's root record
    int made_session_tables;   // FRESH, OWNED, BUSY or STANDS was made this session (ending it drops them)
    int finishing;             // the updater returned and `apply` finishes what it left: an error now
                               // is the new state's (a cycle, too deep), which `abandon` tells Swift
    struct draft_record *root_record;  // the root draft's record (ROOT_RECORD), one for every `apply`
    const void *root_proxy;    // the proxy of the last `apply`'s root draft: the one proxy ROOT_RECORD is
                               // the record of (an older one has none: it is revoked)
} state_machine;

enum {
    M_REC = 1,     // draft proxy -> record (weak keys)
    M_VIEW,        // view proxy -> resident table (weak keys)
    M_VIEWOF,      // resident table -> its view proxy; view proxy -> the key an updater last read it at (weak keys)
    M_IDS,         // the decoding cache's identities: table -> id (weak keys)
    M_TABLES,      // and id -> table (weak values)
    M_SEQ,         // tables known to be exactly the sequence 1..n -> n (weak keys)
    M_DRAFT_MT,
    M_VIEW_MT,
    M_ARRAY,       // the kind markers
    M_OBJECT,
    M_FRESH,       // tables the plugin assigned into a draft this session: read as they are
    M_CHANGES,     // what one finish builds: new table -> { older table, changed keys... }; reused
    M_OWNED,       // plugin table -> its copy, during one finish
    M_BUSY,        // plugin tables being copied, during one finish (a cycle if met again)
    // What stands for what views show, this session (one table: each user value here costs every GC
    // cycle): resident table -> the draft standing for it; VIEW_PARTS -> the views put back; view
    // proxy -> the view it was last read from this session (its key there is in VIEWOF).
    M_STANDS,
    M_COPY_SEQUENCE,  // the Lua function `copy(t, n)`: `{ t[1], ..., t[n] }` built in one SETLIST
    // The root draft's record, made once and reset by every `apply`: a root draft costs its proxy
    // alone. Its change record (R_CHANGES) is the new root's, which the decode reads, kept apart from
    // CHANGES (often the only one) and reused by the next `apply`.
    M_ROOT_RECORD,
    M_COUNT = M_ROOT_RECORD
};

/// One draft's record. Its user values are the tables below.
typedef struct draft_record {
    lua_Integer session;
    state_machine *machine;   // its machinery's, which the draft's metamethods keep alive (an upvalue)
    lua_Integer listed;       // keys in `changes`
    lua_Integer base_length;  // once copied: the base's length if it is exactly a sequence, else -1
    unsigned char has_copy;
    unsigned char finalized;  // 0 until finished, then FINAL_BASE (nothing changed) or FINAL_COPY
    unsigned char is_root;        // the draft the updater was handed: `apply` files its change record
    unsigned char may_list_twice : 1;  // `changes` may list a key twice (set back to its base and written again, or a trim cut short)
    unsigned char has_children : 1;  // `children` was made: a write checks it for the child it detaches
    unsigned char stands : 1;        // it stands for the resident table a view put back shows (STANDS)
    unsigned char busy : 1;          // being finished: met again in that finish, it is a cycle
    unsigned char holds_tables : 1;  // a listed key was given a table: finishing resolves what it holds
    lua_Integer hint_positions;  // the root's: the size of its last copy (keys 1...n, other keys), made
    lua_Integer hint_others;     // in one pass at that size (0, 0: counted first)
    lua_Integer changes_length;  // the root's: entries its change record (R_CHANGES) holds
} draft_record;

/// What a finished draft finished as: its base (nothing in it changed) or its copy.
enum { FINAL_BASE = 1, FINAL_COPY = 2 };

/// A record's user values; a root's record has only the first `R_ROOT_COUNT`.
enum { R_BASE = 1, R_COPY, R_CHANGES, R_CHILDREN, R_PARENT, R_KEY, R_PROXY, R_ROOT_COUNT = R_CHILDREN, R_COUNT = R_PROXY };

#define MACHINE lua_upvalueindex(1)
/// Every machinery function's upvalue 2: REC, read on every access to a draft (no user value look-up).
#define RECORDS lua_upvalueindex(2)

// MARK: - Small helpers

/// Pushes `which[key]` (raw), `which` a table of the machinery at `m`; returns its type.
static inline int lookup(lua_State *L, int m, int which, int key) {
    key = lua_absindex(L, key);
    lua_getiuservalue(L, m, which);
    lua_pushvalue(L, key);
    int type = lua_rawget(L, -2);
    lua_replace(L, -2);
    return type;
}

/// Sets `which[key] = value` (raw); `value` 0 stands for `true`.
static inline void store(lua_State *L, int m, int which, int key, int value) {
    key = lua_absindex(L, key);
    value = value ? lua_absindex(L, value) : 0;
    lua_getiuservalue(L, m, which);
    lua_pushvalue(L, key);
    if (value) lua_pushvalue(L, value); else lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/// Pushes the machinery table `which`, making it (empty) first if it has none.
static inline void session_table(lua_State *L, int m, int which) {
    if (lua_getiuservalue(L, m, which) == LUA_TTABLE) return;
    lua_pop(L, 1);
    if (which != M_CHANGES) ((state_machine *)lua_touserdata(L, m))->made_session_tables = 1;
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, m, which);
}

/// Whether the values at `a` and `b` are one value of the state: raw-equal, and numbers of one subtype
/// and sign (`1` and `1.0`, `0.0` and `-0.0` are raw-equal in Lua but are other values in JSON: writing
/// one over the other is a change).
static inline int same_value(lua_State *L, int a, int b) {
    if (!lua_rawequal(L, a, b)) return 0;
    if (lua_type(L, a) != LUA_TNUMBER) return 1;
    int integer = lua_isinteger(L, a);
    if (integer != lua_isinteger(L, b)) return 0;
    return integer || signbit(lua_tonumber(L, a)) == signbit(lua_tonumber(L, b));
}

/// Whether the value at `index` has the machinery table `which` (M_DRAFT_MT, M_VIEW_MT) as metatable.
static inline int has_metatable(lua_State *L, int m, int index, int which) {
    if (!lua_getmetatable(L, index)) return 0;
    lua_getiuservalue(L, m, which);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

static inline int is_proxy(lua_State *L, int m, int index) {
    if (!lua_getmetatable(L, index)) return 0;
    lua_getiuservalue(L, m, M_DRAFT_MT);
    lua_getiuservalue(L, m, M_VIEW_MT);
    int proxy = lua_rawequal(L, -1, -3) || lua_rawequal(L, -2, -3);
    lua_pop(L, 3);
    return proxy;
}

/// Pushes the record of the draft proxy at `proxy` and returns it (in a machinery function); pushes
/// nil and returns NULL for any other value, and for a root draft of an earlier `apply` (revoked).
static inline draft_record *record_of(lua_State *L, int proxy) {
    state_machine *machine = lua_touserdata(L, MACHINE);
    if (machine->root_proxy && lua_topointer(L, proxy) == machine->root_proxy) {
        lua_getiuservalue(L, MACHINE, M_ROOT_RECORD);
        return machine->root_record;
    }
    lua_pushvalue(L, proxy);
    lua_rawget(L, RECORDS);
    return lua_touserdata(L, -1);
}

static inline void raise_plain(lua_State *L, const char *message) {
    lua_pushstring(L, message);
    lua_error(L);
}

static inline void enter_nested(lua_State *L, state_machine *machine) {
    if (++machine->depth > MAXIMUM_DEPTH) {
        lua_pushfstring(L, "the new state is nested more than %d levels deep", (int)MAXIMUM_DEPTH);
        lua_error(L);
    }
    luaL_checkstack(L, 12, "the new state is nested too deep");
}

/// Gives `copy` (on top) the kind marker of the table at `t`, if it has one.
static inline void keep_kind(lua_State *L, int m, int t) {
    if (!lua_getmetatable(L, t)) return;
    lua_getiuservalue(L, m, M_ARRAY);
    lua_getiuservalue(L, m, M_OBJECT);
    if (lua_rawequal(L, -3, -2) || lua_rawequal(L, -3, -1)) {
        lua_pop(L, 2);
        lua_setmetatable(L, -2);
    } else {
        lua_pop(L, 3);
    }
}

/// Whether `key` (at `index`) is an integer in 1...n.
static inline int is_position(lua_State *L, int index, lua_Integer n) {
    if (!lua_isinteger(L, index)) return 0;
    lua_Integer position = lua_tointeger(L, index);
    return position >= 1 && position <= n;
}

// MARK: - Copies (copies.c)

/// Pushes a shallow copy of the table at `t`, keeping its kind; returns the sequence's length, or -1
/// when `t` is not exactly a sequence. `record`, a root's or NULL, keeps the size of its last copy.
lua_Integer rs_shallow_copy(lua_State *L, int m, int t, draft_record *record);

/// Pushes the Lua function `copy(t, n)` that M_COPY_SEQUENCE holds. Raises only memory errors.
void rs_push_copy_sequence(lua_State *L);

// MARK: - Drafts (drafts.c)

/// The metamethods of a draft proxy (upvalues: the machinery, REC).
extern const luaL_Reg rs_draft_methods[];

void rs_new_draft(lua_State *L, state_machine *machine, int m, int base, int parent, int key, lua_Integer session);
void rs_new_root_draft(lua_State *L, state_machine *machine, int m, int base);
void rs_make_root_record(lua_State *L, state_machine *machine, int m);
int rs_draft_write(lua_State *L, int m, int r, int key, int value);
void rs_prepare(lua_State *L, int m, int r);
void rs_draft_read(lua_State *L, int m, int r, int key, int stand);

/// Raises "this state draft was revoked: its updater has returned" at the plugin's line.
void rs_raise_revoked(lua_State *L);

// MARK: - Views put back into a draft (stand_ins.c)

/// What `rs_settle_stored_table` found the table value stored to be.
enum { STORED_AS_IS, STORED_PLUGIN_TABLE, STORED_VIEW };

void rs_stands_for(lua_State *L, int m, int r, int node);
int rs_push_standing_child(lua_State *L, int m, int r, int key, int value);
int rs_settle_stored_table(lua_State *L, int m, lua_Integer live_session);
void rs_stand_for_shown(lua_State *L, int m);

// MARK: - Views (views.c)

/// The metamethods of a view proxy (upvalues: the machinery, REC).
extern const luaL_Reg rs_view_methods[];

void rs_push_view(lua_State *L, int m, int t, int parent, int key);

// MARK: - Finishing (finishing.c)

void rs_resolve(lua_State *L, int m, int value);
void rs_finalize(lua_State *L, int m, int r);
void rs_end_session(lua_State *L, int m);
void rs_clear_changes(lua_State *L, int m);
void rs_file_root_changes(lua_State *L, int m, int r, int root);

#endif
