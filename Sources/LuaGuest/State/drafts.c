// The resident state's machinery: Immer-style drafts, read-only views and finishing a draft into
// the next version (see LuaResidentState in MoonbladeLua).
//
// It is C because a draft's metamethods run on every read and write a Lua updater makes: as Lua they
// were most of a small dispatch's cost (interpreted, and each instruction under the count hook). C
// functions called from Lua may raise (an error at the plugin's line, a memory error), so nothing here
// runs with a Swift frame below it except `moonblade_state_resolve_proxy`, which never raises. Copies
// are charged to the guest's instruction budget, like `table.move`.
//
// Model (Immer's): a draft is an empty proxy table with the draft metatable; its record, a userdata
// found in the weak-keyed table REC, holds `base` (the resident table, never written), `copy` (a
// shallow copy made on the first write to this table or below it), `changes` (the change record
// `{ base, key, key, ... }` listing the keys written, which finishing trims to those whose value
// differs from `base`; a sequence, so one allocation holds it), `children` (the child draft handed
// out per key, so `d.a == d.a`) and, for a child, its `parent`, `key` and `proxy`. Writes go to
// `copy` and mark the path up to the root; assigning a key detaches the child draft handed out for it
// (written later, it changes only itself). A draft lives as long as its updater, as in Immer: once
// the updater returns it is revoked, and reading, writing or putting it back raises at the plugin's
// line. A view put back gives its key the resident table it shows, and that key's child draft
// stands, for the rest of the updater, for that table (STANDS; a view is one per table). Drafts read
// below a stand-in stand for the tables below, so a view put at two places, or a view and its part
// put back in either order, are one table, as a plain table is: a part put back finds the draft
// standing for its table, or reads down to it from one standing for a table above; a whole put back
// takes in the parts put back before it (`link_parts`). Finishing turns every modified draft into its `copy` with child
// drafts resolved, every unmodified one into its `base` (so an unchanged subtree keeps its identity),
// and deep-copies tables the plugin created, so the resident tree is owned by the host. Copies keep
// the kind marker of their table (LuaTableKind), so an object stays one when emptied.

#include "../guest.h"
#include <math.h>
#include <stdint.h>

const char *moonblade_state_chunk_name(void) { return "moonblade/state.lua"; }

/// Registry key of the machinery (its userdata), for `moonblade_state_resolve_proxy`.
static const char moonblade_state_machinery_key[] = "moonblade.state.machinery";

/// How deep finishing follows nested tables: the coders' limit (LuaCoding.maximumDepth).
enum { moonblade_state_maximum_depth = 512 };

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
    M_ROOT_CHANGES,   // the change record of the new root, kept apart from CHANGES (often the only one)
    M_SPARE_CHANGES,     // the last root change record, emptied once decoded: the next root's, made no more
    M_COUNT = M_SPARE_CHANGES
};

/// One draft's record. Its user values are the tables below.
typedef struct draft_record {
    lua_Integer session;
    lua_Integer listed;       // keys in `changes`
    lua_Integer base_length;  // once copied: the base's length if it is exactly a sequence, else -1
    unsigned char has_copy;
    unsigned char finalized;  // 0 until finished, then FINAL_BASE (nothing changed) or FINAL_COPY
    unsigned char is_root;        // the draft the updater was handed: `apply` files its change record
    unsigned char may_list_twice : 1;  // `changes` may list a key twice (set back to its base and written again, or a trim cut short)
    unsigned char has_children : 1;  // `children` was made: a write checks it for the child it detaches
    unsigned char stands : 1;        // it stands for the resident table a view put back shows (STANDS)
    unsigned char busy : 1;          // being finished: met again in that finish, it is a cycle
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
static int lookup(lua_State *L, int m, int which, int key) {
    key = lua_absindex(L, key);
    lua_getiuservalue(L, m, which);
    lua_pushvalue(L, key);
    int type = lua_rawget(L, -2);
    lua_replace(L, -2);
    return type;
}

/// Sets `which[key] = value` (raw); `value` 0 stands for `true`.
static void store(lua_State *L, int m, int which, int key, int value) {
    key = lua_absindex(L, key);
    value = value ? lua_absindex(L, value) : 0;
    lua_getiuservalue(L, m, which);
    lua_pushvalue(L, key);
    if (value) lua_pushvalue(L, value); else lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/// Pushes the machinery table `which`, making it (empty) first if it has none.
static void session_table(lua_State *L, int m, int which) {
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
static int same_value(lua_State *L, int a, int b) {
    if (!lua_rawequal(L, a, b)) return 0;
    if (lua_type(L, a) != LUA_TNUMBER) return 1;
    int integer = lua_isinteger(L, a);
    if (integer != lua_isinteger(L, b)) return 0;
    return integer || signbit(lua_tonumber(L, a)) == signbit(lua_tonumber(L, b));
}

/// Whether the value at `index` has the machinery table `which` (M_DRAFT_MT, M_VIEW_MT) as metatable.
static int has_metatable(lua_State *L, int m, int index, int which) {
    if (!lua_getmetatable(L, index)) return 0;
    lua_getiuservalue(L, m, which);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

static int is_proxy(lua_State *L, int m, int index) {
    if (!lua_getmetatable(L, index)) return 0;
    lua_getiuservalue(L, m, M_DRAFT_MT);
    lua_getiuservalue(L, m, M_VIEW_MT);
    int proxy = lua_rawequal(L, -1, -3) || lua_rawequal(L, -2, -3);
    lua_pop(L, 3);
    return proxy;
}

/// Pushes the record of the draft proxy at `proxy` and returns it (in a machinery function).
static draft_record *record_of(lua_State *L, int proxy) {
    lua_pushvalue(L, proxy);
    lua_rawget(L, RECORDS);
    return lua_touserdata(L, -1);
}

static void raise_plain(lua_State *L, const char *message) {
    lua_pushstring(L, message);
    lua_error(L);
}

static void enter_nested(lua_State *L, state_machine *machine) {
    if (++machine->depth > moonblade_state_maximum_depth) {
        lua_pushfstring(L, "the new state is nested more than %d levels deep", (int)moonblade_state_maximum_depth);
        lua_error(L);
    }
    luaL_checkstack(L, 12, "the new state is nested too deep");
}

/// Gives `copy` (on top) the kind marker of the table at `t`, if it has one.
static void keep_kind(lua_State *L, int m, int t) {
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
static int is_position(lua_State *L, int index, lua_Integer n) {
    if (!lua_isinteger(L, index)) return 0;
    lua_Integer position = lua_tointeger(L, index);
    return position >= 1 && position <= n;
}

/// Up to this length a sequence is copied through the stack, in one SETLIST (what `{ table.unpack(t) }`
/// does), a third of the cost of setting each item from C; longer ones, or any when the stack cannot
/// grow that far, item by item.
enum { moonblade_stack_copy_limit = 200000 };

/// `push(t, n)`: pushes `t[1]`, ..., `t[n]`, raw; the C half of M_COPY_SEQUENCE.
static int push_sequence(lua_State *L) {
    lua_Integer n = lua_tointeger(L, 2);
    luaL_checkstack(L, (int)n, "the sequence is too long to copy");
    for (lua_Integer i = 1; i <= n; i++) lua_rawgeti(L, 1, i);
    return (int)n;
}

static const char moonblade_copy_sequence_source[] =
    "local push = ...\n"
    "return function(t, n) return { push(t, n) } end\n";

/// Pushes a shallow copy of the table at `t`, keeping its kind; records in SEQ whether `t` is exactly
/// a sequence, which makes the next copy of it a loop over 1...n. Returns the sequence's length, or
/// -1 when `t` is not exactly a sequence.
static lua_Integer shallow_copy(lua_State *L, int m, int t) {
    t = lua_absindex(L, t);
    lua_Integer length = -1, border = (lua_Integer)lua_rawlen(L, t);
    // Only a table with a border past 0 can be a known non-empty sequence (objects skip the look-up).
    if (border > 0 && lookup(L, m, M_SEQ, t) == LUA_TNUMBER) {
        lua_Integer n = lua_tointeger(L, -1);
        length = n;
        lua_pop(L, 1);
        // Room for the items here is room for them in the helper's frame, just above.
        if (n <= moonblade_stack_copy_limit && lua_checkstack(L, (int)n + 8)) {
            lua_getiuservalue(L, m, M_COPY_SEQUENCE);
            lua_pushvalue(L, t);
            lua_pushinteger(L, n);
            lua_call(L, 2, 1);
        } else {
            lua_createtable(L, (int)n, 0);
            for (lua_Integer i = 1; i <= n; i++) {
                lua_rawgeti(L, t, i);
                lua_rawseti(L, -2, i);
            }
        }
        moonblade_count_steps(L, n);
    } else {
        if (border > 0) lua_pop(L, 1);
        lua_Integer n = border, count = 0, positions = 0;
        lua_pushnil(L);
        while (lua_next(L, t)) {
            lua_pop(L, 1);
            count++;
            positions += is_position(L, -1, n);
        }
        lua_Integer others = count - positions;
        lua_createtable(L, positions > INT_MAX ? INT_MAX : (int)positions, others > INT_MAX ? INT_MAX : (int)others);
        int copy = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, t)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, copy);
        }
        moonblade_count_steps(L, count);
        if (others == 0 && positions == n) {
            if (n > 0) {
                lua_pushinteger(L, n);
                store(L, m, M_SEQ, t, -1);
                lua_pop(L, 1);
            }
            length = n;
        }
    }
    keep_kind(L, m, t);
    return length;
}

// MARK: - Drafts

/// Pushes a new draft of the table at `base`, the child at `key` of the draft whose record is at
/// `parent` (both 0 for a root), then its record.
static void new_draft(lua_State *L, int m, int base, int parent, int key, lua_Integer session) {
    base = lua_absindex(L, base);
    lua_createtable(L, 0, 0);
    int proxy = lua_gettop(L);
    lua_getiuservalue(L, m, M_DRAFT_MT);
    lua_setmetatable(L, proxy);
    draft_record *record = lua_newuserdatauv(L, sizeof *record, parent ? R_COUNT : R_ROOT_COUNT);
    record->session = session;
    record->listed = 0;
    record->has_copy = record->finalized = record->may_list_twice = record->has_children = record->stands = 0;
    record->busy = 0;
    record->is_root = !parent;
    int r = lua_gettop(L);
    lua_pushvalue(L, base);
    lua_setiuservalue(L, r, R_BASE);
    if (parent) {  // a child's proxy goes into its parent's copy when the child is first written
        lua_pushvalue(L, proxy);
        lua_setiuservalue(L, r, R_PROXY);
        lua_pushvalue(L, parent);
        lua_setiuservalue(L, r, R_PARENT);
        lua_pushvalue(L, key);
        lua_setiuservalue(L, r, R_KEY);
    }
    lua_pushvalue(L, proxy);
    lua_pushvalue(L, r);
    lua_rawset(L, RECORDS);
}

/// Pushes an empty change record: for a root, the one `clear_changes` kept, if any; else a new table.
static void push_change_record(lua_State *L, int m, int is_root) {
    if (is_root) {
        if (lua_getiuservalue(L, m, M_SPARE_CHANGES) == LUA_TTABLE) {
            lua_pushnil(L);
            lua_setiuservalue(L, m, M_SPARE_CHANGES);
            return;
        }
        lua_pop(L, 1);
    }
    lua_createtable(L, 2, 0);  // the base and the first key
}

/// Lists `key` in the change record of the draft whose record is at `r` (its base at `base`), making
/// the record on its first key.
static void list_key(lua_State *L, int m, int r, int base, int key) {
    draft_record *record = lua_touserdata(L, r);
    if (record->listed > 0) {
        lua_getiuservalue(L, r, R_CHANGES);
    } else {
        push_change_record(L, m, record->is_root);
        lua_pushvalue(L, base);
        lua_rawseti(L, -2, 1);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, r, R_CHANGES);
    }
    lua_pushvalue(L, key);
    lua_rawseti(L, -2, 1 + ++record->listed);
    lua_pop(L, 1);
}

/// Sets `key` to `value` in the copy of the draft whose record is at `r` (made writable before),
/// listing the key in its change record unless it is listed already. Returns 0 when the copy held
/// `value` there already (nothing written).
static int draft_write(lua_State *L, int m, int r, int key, int value) {
    int top = lua_gettop(L);
    lua_getiuservalue(L, r, R_COPY);
    int copy = top + 1;
    lua_getiuservalue(L, r, R_BASE);
    lua_pushvalue(L, key);
    lua_rawget(L, -2);  // base[key]
    lua_pushvalue(L, key);
    lua_rawget(L, copy);  // copy[key]
    if (same_value(L, -1, value)) {
        lua_settop(L, top);
        return 0;
    }
    // A key is listed from its first write on; until then its copy still holds the base's value.
    if (same_value(L, -1, -2)) {
        list_key(L, m, r, top + 2, key);
    } else if (same_value(L, value, -2)) {
        ((draft_record *)lua_touserdata(L, r))->may_list_twice = 1;
    }
    lua_settop(L, copy);
    lua_pushvalue(L, key);
    lua_pushvalue(L, value);
    lua_rawset(L, copy);
    lua_settop(L, top);
    return 1;
}

/// Makes the draft whose record is at `r` writable: a shallow copy of its base, put in place of the
/// base in its parent's copy (made writable first). Pushes the copy.
static void prepare(lua_State *L, int m, int r) {
    luaL_checkstack(L, 8, "the state is nested too deep");
    draft_record *record = lua_touserdata(L, r);
    int top = lua_gettop(L);
    lua_getiuservalue(L, r, R_BASE);
    record->base_length = shallow_copy(L, m, -1);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, r, R_COPY);
    record->has_copy = 1;
    if (!record->is_root && lua_getiuservalue(L, r, R_PARENT) == LUA_TUSERDATA) {
        int p = lua_gettop(L);
        draft_record *parent = lua_touserdata(L, p);
        if (!parent->has_copy) prepare(L, m, p); else lua_getiuservalue(L, p, R_COPY);
        int siblings = lua_gettop(L);
        lua_getiuservalue(L, r, R_KEY);
        lua_getiuservalue(L, r, R_PROXY);
        draft_write(L, m, p, siblings + 1, siblings + 2);
    }
    lua_settop(L, top + 2);
    lua_remove(L, top + 1);
}

/// Records that the draft whose record is at `r` (its proxy just below) stands for the resident table
/// at `node` a view shows: the next view of that table put back, or reached below another one, is
/// that draft.
static void stands_for(lua_State *L, int m, int r, int node) {
    r = lua_absindex(L, r);
    node = lua_absindex(L, node);
    ((draft_record *)lua_touserdata(L, r))->stands = 1;
    session_table(L, m, M_STANDS);
    lua_pushvalue(L, node);
    lua_pushvalue(L, r - 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/// For `draft_read` below a draft standing for the table a view shows (record at `r`), when `key`
/// still holds what it holds there (`value`): the child stands for the table below. When another
/// draft of this updater stands for that table already (a part of the view put back before), pushes
/// that draft and returns 1: it is stored at `key`, so that finishing resolves it there, and is not
/// made this draft's child (a write to the key would cut it from the parent it has). Else pushes the
/// table the child stands for (nil when it stands for none) and returns 0.
static int push_standing_child(lua_State *L, int m, int r, int key, int value) {
    luaL_checkstack(L, 12, "the state is nested too deep");
    draft_record *record = lua_touserdata(L, r);
    if (record->has_copy) {  // a key the updater assigned holds what the view does not
        lua_getiuservalue(L, r, R_BASE);
        lua_pushvalue(L, key);
        lua_rawget(L, -2);
        int same = lua_rawequal(L, -1, value);
        lua_pop(L, 2);
        if (!same) {
            lua_pushnil(L);
            return 0;
        }
    }
    lua_pushvalue(L, value);
    int node = lua_gettop(L);
    if (lookup(L, m, M_STANDS, node) == LUA_TTABLE) {
        record_of(L, -1);
        lua_getiuservalue(L, -1, R_BASE);
        int stands = lua_rawequal(L, -1, value);
        lua_pop(L, 2);
        if (stands) {
            if (!record->has_copy) {
                prepare(L, m, r);
                lua_pop(L, 1);
            }
            draft_write(L, m, r, key, node + 1);
            lua_remove(L, node);
            return 1;
        }
    }
    lua_pop(L, 1);
    return 0;
}

/// Pushes what reading `key` from the draft whose record is at `r` gives: a value, or for a table of
/// the resident state the child draft standing for it. With `stand`, below a draft standing for the
/// table a view shows, that child stands for the table below (or is the draft already standing for
/// it); `stand_for_shown` reads without, to make the stand-in itself.
static void draft_read(lua_State *L, int m, int r, int key, int stand) {
    draft_record *record = lua_touserdata(L, r);
    lua_getiuservalue(L, r, record->has_copy ? R_COPY : R_BASE);
    lua_pushvalue(L, key);
    int type = lua_rawget(L, -2);
    lua_replace(L, -2);
    if (type != LUA_TTABLE) return;
    int value = lua_gettop(L);
    if (is_proxy(L, m, value)) return;
    state_machine *machine = lua_touserdata(L, m);
    if (machine->fresh_count > 0) {
        int fresh = lookup(L, m, M_FRESH, value) != LUA_TNIL;
        lua_pop(L, 1);
        if (fresh) return;
    }
    if (record->has_children) {
        lua_getiuservalue(L, r, R_CHILDREN);
    } else {
        lua_createtable(L, 0, 1);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, r, R_CHILDREN);
        record->has_children = 1;
    }
    int children = lua_gettop(L);
    lua_pushvalue(L, key);
    if (lua_rawget(L, children) == LUA_TTABLE) {
        record_of(L, -1);
        lua_getiuservalue(L, -1, R_BASE);
        if (lua_rawequal(L, -1, value)) {
            lua_pop(L, 2);
            lua_replace(L, value);
            lua_settop(L, value);
            return;
        }
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    int node = 0;
    if (stand && record->stands && record->session == machine->live_session) {
        if (push_standing_child(L, m, r, key, value)) {
            lua_replace(L, value);
            lua_settop(L, value);
            return;
        }
        node = lua_gettop(L);
    }
    new_draft(L, m, value, r, key, record->session);
    if (node && !lua_isnil(L, node)) stands_for(L, m, lua_gettop(L), node);
    lua_pop(L, 1);
    lua_pushvalue(L, key);
    lua_pushvalue(L, -2);
    lua_rawset(L, children);
    lua_replace(L, value);
    lua_settop(L, value);
}

/// Before `key` of the draft whose record is at `r` is assigned `value`: the child draft handed out
/// for that key, unless it is what is assigned, is detached, since the key no longer holds it. Written
/// later, it changes itself only, as a plain table taken out of its parent would; this cannot be told
/// from the key's value, which may be the child's base again (a view put back). Only
/// for a record that has children.
static void detach_child(lua_State *L, int r, int key, int value) {
    int top = lua_gettop(L);
    lua_getiuservalue(L, r, R_CHILDREN);
    int children = lua_gettop(L);
    lua_pushvalue(L, key);
    if (lua_rawget(L, children) == LUA_TTABLE && !lua_rawequal(L, -1, value)) {
        record_of(L, -1);
        lua_pushnil(L);
        lua_setiuservalue(L, -2, R_PARENT);
        lua_pushvalue(L, key);
        lua_pushnil(L);
        lua_rawset(L, children);
    }
    lua_settop(L, top);
}

/// Pushes the record of the draft proxy at 1 (a metamethod's first argument) and returns it, raising
/// at the plugin's line when its updater has returned (the draft is revoked).
static draft_record *live_record(lua_State *L) {
    draft_record *record = record_of(L, 1);
    if (record->session != ((state_machine *)lua_touserdata(L, MACHINE))->live_session) {
        luaL_error(L, "this state draft was revoked: its updater has returned");
    }
    return record;
}

static int draft_index(lua_State *L) {
    live_record(L);
    draft_read(L, MACHINE, 3, 2, 1);
    return 1;
}

/// Pushes what the draft whose record is at `r` shows once finished, and returns 1: its final table,
/// or its base when it was never written. Returns 0, pushing nothing, when it was written but is not
/// finished yet.
static int push_shown(lua_State *L, int r) {
    draft_record *record = lua_touserdata(L, r);
    if (record->has_copy && !record->finalized) return 0;
    lua_getiuservalue(L, r, record->finalized == FINAL_COPY ? R_COPY : R_BASE);
    return 1;
}

/// Reads `keys[from]`, ..., `keys[to]` (either way) down from the draft on top, as the plugin would, and
/// pops it: below a draft standing for a view's table, `draft_read` makes the drafts standing for the
/// tables below, or hands out the ones that do already.
static void read_down(lua_State *L, int m, int keys, int from, int to) {
    int step = from <= to ? 1 : -1;
    for (int i = from; i != to + step; i += step) {
        if (!record_of(L, -1)) {  // no draft (a value the plugin put there): nothing below to read
            lua_pop(L, 1);
            break;
        }
        lua_rawgeti(L, keys, i);
        draft_read(L, m, lua_gettop(L) - 1, lua_gettop(L), 1);
        lua_replace(L, -4);
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
}

/// Walks up from the view at `walker` (replaced as it goes) through the view each was last read from
/// this session, writing the keys they were read at into `keys`. Returns how many once it reaches a
/// view of the resident table `target` or, with `target` 0, of one a draft stands for (that draft then
/// pushed); 0, pushing nothing, when it reaches neither.
static int walk_up_views(lua_State *L, int m, int walker, int keys, int target) {
    for (int count = 1; count <= moonblade_state_maximum_depth; count++) {
        if (lookup(L, m, M_STANDS, walker) != LUA_TTABLE) {  // read from no view this session
            lua_pop(L, 1);
            return 0;
        }
        lookup(L, m, M_VIEWOF, walker);
        lua_rawseti(L, keys, count);
        lua_replace(L, walker);
        lookup(L, m, M_VIEW, walker);  // the resident table it shows
        if (target) {
            int reached = lua_rawequal(L, -1, target);
            lua_pop(L, 1);
            if (reached) return count;
        } else if (lookup(L, m, M_STANDS, -1) == LUA_TTABLE) {
            lua_remove(L, -2);
            return count;
        } else {
            lua_pop(L, 2);
        }
    }
    return 0;
}

/// Pushes the node of the place the view at `x` shows: its resident table (a view is one per table
/// and shows it at every place). When no draft stands for it yet but one stands for a view it was read
/// from (the view's whole was put back first), reads the keys down from that one.
static void push_view_node(lua_State *L, int m, int x, int shown) {
    int top = lua_gettop(L);
    lua_pushvalue(L, shown);  // the node, at top + 1
    session_table(L, m, M_STANDS);
    int stands = top + 2;
    lua_pushvalue(L, top + 1);
    if (lua_rawget(L, stands) == LUA_TTABLE) {
        lua_settop(L, top + 1);
        return;
    }
    lua_pop(L, 1);
    lua_createtable(L, 8, 0);  // the keys up from `x`, at top + 3
    lua_pushvalue(L, x);  // the walker, at top + 4
    int count = walk_up_views(L, m, top + 4, top + 3, 0);
    if (count) read_down(L, m, top + 3, count, 1);
    lua_settop(L, top + 1);
}

/// What `settle_stored_table` found the table value stored to be.
enum { STORED_AS_IS, STORED_PLUGIN_TABLE, STORED_VIEW };

/// Puts in place of the table value at 3 of `draft_newindex` (record at 4) what it stands for when it
/// is a view: the draft of this updater standing for the table it shows, if one does (it or a part of
/// it, or a whole it is part of, was put back before: one table there, as a plain table put at two
/// places is); else the table it shows, so that reading it back gives a draft of it, written like any
/// other part of the state, and returns STORED_VIEW with that table at 5 and the view at 6, for
/// `stand_for_shown`. A draft of an earlier updater is revoked: storing it raises. Any other table,
/// with a metatable of its own or none, is the plugin's: STORED_PLUGIN_TABLE.
static int settle_stored_table(lua_State *L, int m, lua_Integer live_session) {
    if (!lua_getmetatable(L, 3)) return STORED_PLUGIN_TABLE;
    lua_getiuservalue(L, m, M_DRAFT_MT);
    lua_getiuservalue(L, m, M_VIEW_MT);
    int draft = lua_rawequal(L, -2, -3), view = lua_rawequal(L, -1, -3);
    lua_settop(L, 4);
    // A table the plugin made and gave a metatable of its own is the plugin's as much as one without:
    // read back, it is itself (its `__index`, `__len` working), not a draft of it as if it were the
    // resident state's, whose writes went to a copy the table itself never saw.
    if (!draft && !view) return STORED_PLUGIN_TABLE;
    if (draft) {
        draft_record *stored = record_of(L, 3);
        if (stored && stored->session != live_session) {
            luaL_error(L, "this state draft was revoked: its updater has returned");
        }
        lua_settop(L, 4);
        return STORED_AS_IS;
    }
    lookup(L, m, M_VIEW, 3);
    // Below the metamethod's own slots: the walks' values, then `draft_read` making child drafts.
    luaL_checkstack(L, 24, "the state is nested too deep");
    push_view_node(L, m, 3, 5);
    if (lookup(L, m, M_STANDS, -1) == LUA_TTABLE) {  // made by the walk
        lua_replace(L, 3);
        lua_settop(L, 4);
        return STORED_AS_IS;
    }
    lua_pop(L, 1);  // the table at 6 is the one at 5: a view's place is its table
    lua_pushvalue(L, 3);
    lua_copy(L, 5, 3);
    lua_copy(L, 7, 6);  // the view
    lua_settop(L, 6);
    return STORED_VIEW;
}

/// The key of VIEW_PARTS in STANDS: the views put back this session, a sequence (see `link_parts`).
static const char view_parts_key = 0;

/// Pushes VIEW_PARTS and returns its type (nil when no view was put back this session).
static int view_parts(lua_State *L, int m) {
    session_table(L, m, M_STANDS);
    int type = lua_rawgetp(L, -1, &view_parts_key);
    lua_remove(L, -2);
    return type;
}

/// After the draft at `s` came to stand for the resident table at `node` a view shows: the parts of it
/// put back before it, which drafts stand for, become its parts, as in a plain table put back after its
/// parts: reading down to each from `s` hands it out there (its proxy stored on the path), so that
/// written through either place, it is written at both. Its parts are the views put back this session
/// read (last) from it or below it.
static void link_parts(lua_State *L, int m, int s, int node) {
    int top = lua_gettop(L);
    lua_createtable(L, 8, 0);  // the keys of a path, at top + 1
    int keys = top + 1;
    if (view_parts(L, m) == LUA_TTABLE) {  // at top + 2
        lua_Integer parts = (lua_Integer)lua_rawlen(L, top + 2);
        for (lua_Integer i = 1; i <= parts; i++) {
            lua_rawgeti(L, top + 2, i);  // the walker, at top + 3
            int count = walk_up_views(L, m, top + 3, keys, node);
            if (count) {
                lua_pushvalue(L, s);
                read_down(L, m, keys, count, 1);
            }
            lua_settop(L, top + 2);
        }
    }
    lua_settop(L, top);
}

/// After key 2 of the draft whose record is at 4 was given the resident table at 5 a view (at 6)
/// shows: the key's child draft stands for that table for the rest of the updater, and the parts of
/// it put back before are its parts (`link_parts`).
static void stand_for_shown(lua_State *L, int m) {
    luaL_checkstack(L, 16, "the state is nested too deep");
    // The key holds that table (neither a draft nor the plugin's): its child. Not one standing for the
    // table the key had in what the draft at 4 may stand for: another table is there now.
    draft_read(L, m, 4, 2, 0);
    int child = lua_gettop(L);
    if (!record_of(L, child)) return;
    stands_for(L, m, child + 1, 5);
    link_parts(L, m, child, 5);
    if (view_parts(L, m) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 4, 0);
        session_table(L, m, M_STANDS);
        lua_pushvalue(L, -2);
        lua_rawsetp(L, -2, &view_parts_key);
        lua_pop(L, 1);
    }
    lua_pushvalue(L, 6);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
}

static int draft_newindex(lua_State *L) {
    int m = MACHINE;
    state_machine *machine = lua_touserdata(L, m);
    draft_record *record = live_record(L);  // at 4
    int key_type = lua_type(L, 2);
    if (key_type == LUA_TNIL) return luaL_error(L, "table index is nil");
    if (key_type == LUA_TNUMBER && !lua_isinteger(L, 2) && isnan(lua_tonumber(L, 2))) {
        return luaL_error(L, "table index is NaN");
    }
    int stored = lua_type(L, 3) == LUA_TTABLE ? settle_stored_table(L, m, machine->live_session) : STORED_AS_IS;
    if (record->has_children) detach_child(L, 4, 2, 3);
    int top = lua_gettop(L), wrote = 1;
    if (!record->has_copy) {
        lua_getiuservalue(L, 4, R_BASE);  // at top + 1
        lua_pushvalue(L, 2);
        lua_rawget(L, top + 1);
        if (same_value(L, -1, 3)) {
            wrote = 0;  // writing back what the base holds copies nothing
        } else {
            lua_pop(L, 1);
            // The first write: the new copy holds the base's value at `key`, which nothing listed yet.
            prepare(L, m, 4);  // at top + 2
            list_key(L, m, 4, top + 1, 2);
            lua_pushvalue(L, 2);
            lua_pushvalue(L, 3);
            lua_rawset(L, top + 2);
        }
    } else {
        wrote = draft_write(L, m, 4, 2, 3);
    }
    if (stored == STORED_VIEW) {
        stand_for_shown(L, m);
    } else if (wrote && stored == STORED_PLUGIN_TABLE) {
        session_table(L, m, M_FRESH);
        lua_pushvalue(L, 3);
        lua_pushboolean(L, 1);
        lua_rawset(L, -3);
        lua_pop(L, 1);
        machine->fresh_count++;
    }
    return 0;
}

static int draft_len(lua_State *L) {
    draft_record *record = live_record(L);
    lua_getiuservalue(L, -1, record->has_copy ? R_COPY : R_BASE);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

/// The iterator of `pairs(draft)`: walks the table the draft read from when the loop started
/// (upvalue 3), yielding current values (child drafts for tables) and skipping fields set to nil.
static int draft_next(lua_State *L) {
    lua_settop(L, 2);
    // Called by hand, it may be given any value: only a draft has a record to read through.
    if (!record_of(L, 1)) {  // at 3
        return luaL_error(L, "the iterator of pairs(draft) needs a state draft, got a %s", luaL_typename(L, 1));
    }
    live_record(L);
    lua_pop(L, 1);
    lua_pushvalue(L, 2);
    while (lua_next(L, lua_upvalueindex(3))) {
        lua_pop(L, 1);
        int key = lua_gettop(L);
        draft_read(L, MACHINE, 3, key, 1);
        if (!lua_isnil(L, -1)) return 2;
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    return 1;
}

static int draft_pairs(lua_State *L) {
    draft_record *record = live_record(L);
    lua_pushvalue(L, MACHINE);
    lua_pushvalue(L, RECORDS);
    lua_getiuservalue(L, -3, record->has_copy ? R_COPY : R_BASE);
    lua_pushcclosure(L, draft_next, 3);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

// MARK: - Views

/// Pushes the read-only view of the resident table at `t` (one per table, made on first use), read at
/// `key` from the view at `parent` (0 for none). Read so by an updater, the view remembers where for the
/// rest of it (STANDS, VIEWOF): put back after the view it was last read from, it is found below that
/// one (`push_view_node`). The last, not the first: a table the state keeps is read from the views of
/// the newer tables holding it. Reads outside updaters (side effects, observers) record nothing.
static void push_view(lua_State *L, int m, int t, int parent, int key) {
    t = lua_absindex(L, t);
    if (parent) {
        parent = lua_absindex(L, parent);
        key = lua_absindex(L, key);
    }
    if (lookup(L, m, M_VIEWOF, t) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 0);
        lua_getiuservalue(L, m, M_VIEW_MT);
        lua_setmetatable(L, -2);
        store(L, m, M_VIEW, -1, t);
        store(L, m, M_VIEWOF, t, -1);
    }
    if (parent && ((state_machine *)lua_touserdata(L, m))->live_session) {
        session_table(L, m, M_STANDS);
        lua_pushvalue(L, -2);
        lua_pushvalue(L, parent);
        lua_rawset(L, -3);
        lua_pop(L, 1);
        store(L, m, M_VIEWOF, -1, key);
    }
}

static int view_index(lua_State *L) {
    lookup(L, MACHINE, M_VIEW, 1);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, -2) == LUA_TTABLE) push_view(L, MACHINE, -1, 1, 2);
    return 1;
}

/// Pushes how a message names `key` (at `index`): `field "name"` (quoted as `%q` does) or `key 3`.
static void push_key_description(lua_State *L, int index) {
    index = lua_absindex(L, index);
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    if (lua_type(L, index) == LUA_TSTRING) {
        size_t length;
        const char *name = lua_tolstring(L, index, &length);
        luaL_addstring(&buffer, "field \"");
        for (size_t i = 0; i < length; i++) {
            unsigned char c = (unsigned char)name[i];
            if (c == '"' || c == '\\' || c == '\n') {
                luaL_addchar(&buffer, '\\');
                luaL_addchar(&buffer, (char)c);
            } else if (c == '\r') {
                luaL_addstring(&buffer, "\\r");
            } else if (c < 0x20 || c == 0x7f) {
                char escaped[8];
                snprintf(escaped, sizeof escaped, i + 1 < length && name[i + 1] >= '0' && name[i + 1] <= '9' ? "\\%03d" : "\\%d", c);
                luaL_addstring(&buffer, escaped);
            } else {
                luaL_addchar(&buffer, (char)c);
            }
        }
        luaL_addchar(&buffer, '"');
    } else {
        luaL_addstring(&buffer, "key ");
        luaL_tolstring(L, index, NULL);
        luaL_addvalue(&buffer);
    }
    luaL_pushresult(&buffer);
}

static int view_newindex(lua_State *L) {
    luaL_where(L, 1);
    lua_pushstring(L, "state is read-only here (");
    push_key_description(L, 2);
    lua_pushstring(L, ")");
    lua_concat(L, 4);
    return lua_error(L);
}

static int view_len(lua_State *L) {
    lookup(L, MACHINE, M_VIEW, 1);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

/// The iterator of `pairs(view)`: walks the resident table (upvalue 3), handing out views of tables.
static int view_next(lua_State *L) {
    lua_settop(L, 2);
    if (!lua_next(L, lua_upvalueindex(3))) {
        lua_pushnil(L);
        return 1;
    }
    if (lua_type(L, -1) == LUA_TTABLE) {
        push_view(L, MACHINE, -1, 1, -2);
        lua_replace(L, -2);
    }
    return 2;
}

static int view_pairs(lua_State *L) {
    lua_pushvalue(L, MACHINE);
    lua_pushvalue(L, RECORDS);
    lookup(L, MACHINE, M_VIEW, 1);
    lua_pushcclosure(L, view_next, 3);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

// MARK: - Finishing

static void resolve(lua_State *L, int m, int value);

/// Whether `copy` (at `c`), made from the sequence `base` of `n` items by the changed keys in `list`,
/// is a sequence too (the same checks as LuaTableChanges.patchedArray); pushes its length if so.
static int sequence_length(lua_State *L, int c, lua_Integer n, int list) {
    lua_Integer m = (lua_Integer)lua_rawlen(L, c), grown = 0, shrunk = 0, count = (lua_Integer)lua_rawlen(L, list);
    for (lua_Integer i = 2; i <= count; i++) {
        lua_rawgeti(L, list, i);
        if (!lua_isinteger(L, -1)) {
            lua_pop(L, 1);
            return 0;
        }
        lua_Integer k = lua_tointeger(L, -1);
        lua_pop(L, 1);
        int present = lua_rawgeti(L, c, k) != LUA_TNIL;
        lua_pop(L, 1);
        if (present) {
            if (k < 1 || k > m) return 0;
            if (k > n) grown++;
        } else if (k <= m) {
            return 0;
        } else if (k <= n) {
            shrunk++;
        }
    }
    if (grown != (m > n ? m - n : 0) || shrunk != (n > m ? n - m : 0)) return 0;
    lua_pushinteger(L, m);
    return 1;
}

/// Files the change record at `list` of the new table at `copy` in CHANGES.
static void file_changes(lua_State *L, int m, int copy, int list) {
    session_table(L, m, M_CHANGES);
    lua_pushvalue(L, copy);
    lua_pushvalue(L, list);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    ((state_machine *)lua_touserdata(L, m))->change_count++;
}

/// Pushes what the draft whose record is at `r` finishes as: its copy with every change resolved and
/// a change record in CHANGES, or its base when nothing in it changed.
static void finalize(lua_State *L, int m, int r) {
    r = lua_absindex(L, r);
    draft_record *record = lua_touserdata(L, r);
    if (push_shown(L, r)) {  // finished before, or never written: its base
        if (!record->finalized) record->finalized = FINAL_BASE;
        return;
    }
    state_machine *machine = lua_touserdata(L, m);
    if (record->busy) raise_plain(L, "the new state contains a table that contains itself (a cycle)");
    enter_nested(L, machine);
    record->busy = 1;
    int top = lua_gettop(L);
    lua_getiuservalue(L, r, R_COPY);
    int copy = top + 1;
    lua_getiuservalue(L, r, R_BASE);
    int base = top + 2;
    lua_getiuservalue(L, r, R_CHANGES);
    int list = top + 3;
    // A key set back to its base value and written again is listed twice: list it once.
    int seen = 0;
    if (record->may_list_twice) {
        lua_createtable(L, 0, record->listed > INT_MAX ? INT_MAX : (int)record->listed);
        seen = lua_gettop(L);
    }
    lua_Integer kept = 0;
    for (lua_Integer i = 2; i <= record->listed + 1; i++) {
        lua_rawgeti(L, list, i);
        int key = lua_gettop(L);
        if (seen) {
            lua_pushvalue(L, key);
            int met = lua_rawget(L, seen) != LUA_TNIL;
            lua_pop(L, 1);
            if (met) {
                lua_settop(L, key - 1);
                continue;
            }
            lua_pushvalue(L, key);
            lua_pushboolean(L, 1);
            lua_rawset(L, seen);
        }
        lua_pushvalue(L, key);
        if (lua_rawget(L, copy) == LUA_TTABLE) {
            resolve(L, m, -1);
            lua_pushvalue(L, key);
            lua_pushvalue(L, -2);
            lua_rawset(L, copy);
        }
        int value = lua_gettop(L);
        lua_pushvalue(L, key);
        lua_rawget(L, base);
        // The record keeps only the keys whose value differs from the base's.
        if (!same_value(L, value, -1)) {
            lua_pushvalue(L, key);
            lua_rawseti(L, list, 1 + ++kept);
        }
        lua_settop(L, key - 1);
    }
    for (lua_Integer i = kept + 2; i <= record->listed + 1; i++) {
        lua_pushnil(L);
        lua_rawseti(L, list, i);
    }
    record->busy = 0;
    machine->depth--;
    if (kept > 0) {
        if (!record->is_root) file_changes(L, m, copy, list);  // the root's: `file_root_changes`
        if (record->base_length >= 0 && sequence_length(L, copy, record->base_length, list)) {
            store(L, m, M_SEQ, copy, -1);
        }
        lua_settop(L, copy);
    } else {
        lua_settop(L, base);
        lua_remove(L, copy);
    }
    // The final table is now at top + 1, alone above what the caller had.
    record->finalized = kept > 0 ? FINAL_COPY : FINAL_BASE;
}

/// Pushes a copy of the table at `t` the plugin built (a payload, a returned state), with drafts,
/// views and nested tables in it resolved: the resident tree is the host's.
static void own(lua_State *L, int m, int t) {
    t = lua_absindex(L, t);
    session_table(L, m, M_OWNED);
    int owned_tables = lua_gettop(L);
    lua_pushvalue(L, t);
    if (lua_rawget(L, owned_tables) == LUA_TTABLE) {
        if (lookup(L, m, M_BUSY, t) != LUA_TNIL) {
            raise_plain(L, "the new state contains a table that contains itself (a cycle)");
        }
        lua_pop(L, 1);
        lua_remove(L, owned_tables);
        return;
    }
    lua_pop(L, 1);
    state_machine *machine = lua_touserdata(L, m);
    enter_nested(L, machine);
    // raw length and raw reads: a plugin's `__len` or `__index` must not run here.
    lua_Integer n = (lua_Integer)lua_rawlen(L, t), count = 0, positions = 0;
    lua_createtable(L, n > INT_MAX ? INT_MAX : (int)n, 0);
    int owned = lua_gettop(L);
    keep_kind(L, m, t);
    lua_pushvalue(L, t);
    lua_pushvalue(L, owned);
    lua_rawset(L, owned_tables);
    session_table(L, m, M_BUSY);
    int busy = lua_gettop(L);
    lua_pushvalue(L, t);
    lua_pushboolean(L, 1);
    lua_rawset(L, busy);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        int value = lua_gettop(L), key = value - 1;
        count++;
        positions += is_position(L, key, n);
        resolve(L, m, key);
        resolve(L, m, value);
        lua_rawset(L, owned);
        lua_settop(L, key);
    }
    moonblade_count_steps(L, count);
    if (count == positions && positions == n) {
        lua_pushinteger(L, n);
        store(L, m, M_SEQ, owned, -1);
        lua_pop(L, 1);
    }
    lua_pushvalue(L, t);
    lua_pushnil(L);
    lua_rawset(L, busy);
    machine->depth--;
    lua_settop(L, owned);
    lua_remove(L, owned_tables);
}

/// Pushes the value at `value` as the new state holds it.
static void resolve(lua_State *L, int m, int value) {
    value = lua_absindex(L, value);
    if (lua_type(L, value) != LUA_TTABLE) {
        lua_pushvalue(L, value);
    } else if (has_metatable(L, m, value, M_DRAFT_MT)) {
        draft_record *record = record_of(L, value);
        // Only a table the plugin made can hold a draft of an earlier updater (a draft refuses one).
        if (record->session != ((state_machine *)lua_touserdata(L, m))->last_session) {
            raise_plain(L, "the new state holds a state draft that was revoked when its updater returned");
        }
        finalize(L, m, -1);
        lua_replace(L, -2);
    } else if (has_metatable(L, m, value, M_VIEW_MT)) {
        lookup(L, m, M_VIEW, value);
    } else {
        own(L, m, value);
    }
}

/// Up to this many entries, CHANGES is emptied for the next session rather than made again: a small
/// dispatch then allocates no table for it. Past it, walking the emptied table would cost more.
enum { moonblade_reused_changes_limit = 32 };

static void end_session(lua_State *L, int m) {
    state_machine *machine = lua_touserdata(L, m);
    machine->live_session = 0;
    machine->fresh_count = 0;
    if (!machine->made_session_tables) return;
    machine->made_session_tables = 0;
    for (int which = M_FRESH; which <= M_STANDS; which++) {
        if (which == M_CHANGES) continue;  // read by the decode that follows; emptied after it
        lua_pushnil(L);
        lua_setiuservalue(L, m, which);
    }
}

/// Up to this many keys, the root's change record is emptied and kept for the next root's, so a small
/// dispatch makes no table for it. Its user, the root's finished record, never reads it again.
enum { moonblade_spare_record_limit = 16 };

/// Empties CHANGES of the last session's records (the pending state they describe was decoded or
/// dropped by now), keeping the table when it held few. Raises nothing: it only sets fields to nil.
static void clear_changes(lua_State *L, int m) {
    state_machine *machine = lua_touserdata(L, m);
    if (machine->has_root_changes) {
        lua_getiuservalue(L, m, M_ROOT_CHANGES);
        lua_Integer length = (lua_Integer)lua_rawlen(L, -1);  // the base and the keys: a sequence
        if (length <= moonblade_spare_record_limit + 1) {
            for (lua_Integer i = length; i >= 1; i--) {
                lua_pushnil(L);
                lua_rawseti(L, -2, i);
            }
            lua_setiuservalue(L, m, M_SPARE_CHANGES);
        } else {
            lua_pop(L, 1);
        }
        lua_pushnil(L);
        lua_setiuservalue(L, m, M_ROOT_CHANGES);
        machine->has_root_changes = 0;
    }
    if (machine->change_count == 0) return;
    if (machine->change_count > moonblade_reused_changes_limit) {
        lua_pushnil(L);
        lua_setiuservalue(L, m, M_CHANGES);
    } else {
        lua_getiuservalue(L, m, M_CHANGES);
        int changes = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, changes)) {
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_pushnil(L);
            lua_rawset(L, changes);  // clearing a field during the traversal is allowed (lua_next)
        }
        lua_pop(L, 1);
    }
    machine->change_count = 0;
}

/// Files the change record of the draft the updater was handed (record at `r`), if it finished as
/// a new table: apart, in ROOT_CHANGES, when that table is the new root at `root` (the decoder then
/// finds it without a look-up), else in CHANGES like any other.
static void file_root_changes(lua_State *L, int m, int r, int root) {
    draft_record *record = lua_touserdata(L, r);
    if (record->finalized != FINAL_COPY) return;
    lua_getiuservalue(L, r, R_COPY);
    lua_getiuservalue(L, r, R_CHANGES);
    if (lua_rawequal(L, -2, root)) {
        lua_setiuservalue(L, m, M_ROOT_CHANGES);
        ((state_machine *)lua_touserdata(L, m))->has_root_changes = 1;
    } else {
        file_changes(L, m, lua_gettop(L) - 1, lua_gettop(L));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

// MARK: - The functions Swift calls

/// `apply(root, updater, ...)`: runs `updater(draft, ...)` on a draft of `root` and finishes it.
/// Returns the new root, the number of this session, whose change records
/// `moonblade_state_push_decoding_tables` pushes (nil when no table came from an older one), and
/// whether the new root is `root` itself (nothing changed); or nil, nil and the type's name when the
/// updater of a table state returned neither a table nor nil.
static int state_apply(lua_State *L) {
    int m = MACHINE;
    state_machine *machine = lua_touserdata(L, m);
    int arguments = lua_gettop(L);
    luaL_checkstack(L, arguments + 8, "too many arguments");
    end_session(L, m);  // a failed apply that `abandon` did not end (nothing to do otherwise)
    clear_changes(L, m);
    machine->live_session = ++machine->last_session;
    machine->depth = 0;
    machine->finishing = 0;
    int is_table = lua_type(L, 1) == LUA_TTABLE;
    if (is_table) {
        new_draft(L, m, 1, 0, 0, machine->live_session);
    } else {  // a state that is not a table is handed over as it is, with no record
        lua_pushvalue(L, 1);
        lua_pushnil(L);
    }
    int draft = lua_gettop(L) - 1, root_record = is_table ? draft + 1 : 0;
    lua_pushvalue(L, 2);
    lua_pushvalue(L, draft);
    for (int i = 3; i <= arguments; i++) lua_pushvalue(L, i);
    lua_call(L, arguments - 1, 1);
    int result = lua_gettop(L);
    machine->live_session = 0;
    if (!lua_isnil(L, result) && is_table && lua_type(L, result) != LUA_TTABLE) {
        lua_pushnil(L);
        lua_pushnil(L);
        lua_pushstring(L, luaL_typename(L, result));
        end_session(L, m);
        return 3;
    }
    machine->finishing = 1;
    if (!lua_isnil(L, result)) {
        resolve(L, m, result);
    } else if (is_table) {
        finalize(L, m, root_record);
    } else {
        lua_pushvalue(L, 1);
    }
    if (root_record) file_root_changes(L, m, root_record, lua_gettop(L));
    int changed = machine->change_count > 0 || machine->has_root_changes;
    if (changed) lua_pushinteger(L, machine->last_session); else lua_pushnil(L);
    lua_pushboolean(L, lua_rawequal(L, -2, 1));
    machine->finishing = 0;
    end_session(L, m);
    return 3;
}

/// `abandon()`: after an `apply` failed, makes its drafts read-only. Returns whether it failed while
/// finishing the state its updater left (else the updater itself failed).
static int state_abandon(lua_State *L) {
    state_machine *machine = lua_touserdata(L, MACHINE);
    lua_pushboolean(L, machine->finishing);
    machine->finishing = 0;
    end_session(L, MACHINE);
    return 1;
}

/// `view(value)`: a read-only view of a resident table; any other value as it is.
static int state_view(lua_State *L) {
    lua_settop(L, 1);
    if (lua_type(L, 1) == LUA_TTABLE) push_view(L, MACHINE, 1, 0, 0);
    return 1;
}

static void weak_table(lua_State *L, int m, int which, const char *mode) {
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 1);
    lua_pushstring(L, mode);
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setiuservalue(L, m, which);
}

/// A proxy's metatable, `name` for `getmetatable`; `shared`, the name of what it shows when every plugin
/// may hold the same proxy (a view), which the sandbox's `rawset` then refuses.
static void proxy_metatable(
    lua_State *L, int m, int which, const char *name, const char *shared, const luaL_Reg *methods) {
    lua_createtable(L, 0, 6);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__metatable");
    if (shared) {
        lua_pushstring(L, shared);
        lua_setfield(L, -2, moonblade_read_only_field);
    }
    lua_pushvalue(L, m);
    lua_getiuservalue(L, m, M_REC);
    luaL_setfuncs(L, methods, 2);
    lua_setiuservalue(L, m, which);
}

int moonblade_open_state_machinery(lua_State *L) {
    lua_settop(L, 2);
    state_machine *machine = lua_newuserdatauv(L, sizeof *machine, M_COUNT);
    *machine = (state_machine){0};
    int m = lua_gettop(L);
    weak_table(L, m, M_REC, "k");
    weak_table(L, m, M_VIEW, "k");
    weak_table(L, m, M_VIEWOF, "k");
    weak_table(L, m, M_IDS, "k");
    weak_table(L, m, M_TABLES, "v");
    weak_table(L, m, M_SEQ, "k");
    static const luaL_Reg draft_methods[] = {
        {"__index", draft_index}, {"__newindex", draft_newindex}, {"__len", draft_len}, {"__pairs", draft_pairs},
        {NULL, NULL}};
    static const luaL_Reg view_methods[] = {
        {"__index", view_index}, {"__newindex", view_newindex}, {"__len", view_len}, {"__pairs", view_pairs},
        {NULL, NULL}};
    proxy_metatable(L, m, M_DRAFT_MT, "state draft", NULL, draft_methods);
    proxy_metatable(L, m, M_VIEW_MT, "state view", "the state (a view)", view_methods);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, m, M_ARRAY);
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, m, M_OBJECT);
    lua_pushfstring(L, "@%s", moonblade_state_chunk_name());
    int loaded = luaL_loadbufferx(
        L, moonblade_copy_sequence_source, sizeof moonblade_copy_sequence_source - 1, lua_tostring(L, -1), "t");
    lua_replace(L, -2);
    if (loaded != LUA_OK) {
        return lua_error(L);
    }
    lua_pushcfunction(L, push_sequence);
    lua_call(L, 1, 1);
    lua_setiuservalue(L, m, M_COPY_SEQUENCE);
    lua_pushvalue(L, m);
    lua_rawsetp(L, LUA_REGISTRYINDEX, moonblade_state_machinery_key);

    static const luaL_Reg functions[] = {
        {"apply", state_apply}, {"abandon", state_abandon}, {"view", state_view}, {NULL, NULL}};
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, m);
    lua_getiuservalue(L, m, M_REC);
    luaL_setfuncs(L, functions, 2);
    lua_pushvalue(L, m);
    lua_setfield(L, -2, "machinery");
    return 1;
}

int moonblade_state_push_decoding_tables(lua_State *L, int machinery, lua_Integer session) {
    state_machine *machine = lua_touserdata(L, machinery);
    lua_getiuservalue(L, machinery, M_IDS);
    lua_getiuservalue(L, machinery, M_TABLES);
    if (session == 0 || session != machine->last_session) {
        lua_pushnil(L);
        lua_pushnil(L);
        return 0;
    }
    if (machine->change_count > 0) lua_getiuservalue(L, machinery, M_CHANGES); else lua_pushnil(L);
    if (machine->has_root_changes) lua_getiuservalue(L, machinery, M_ROOT_CHANGES); else lua_pushnil(L);
    return machine->change_count > 0 || machine->has_root_changes;
}

void moonblade_state_replace_with_tables(lua_State *L, int machinery) {
    machinery = lua_absindex(L, machinery);
    lua_getiuservalue(L, machinery, M_TABLES);
    lua_replace(L, machinery);
}

void moonblade_state_drop_changes(lua_State *L, int machinery) {
    clear_changes(L, lua_absindex(L, machinery));
}

int moonblade_state_resolve_proxy(lua_State *L, int index) {
    if (lua_type(L, index) != LUA_TTABLE || !lua_checkstack(L, 4)) return 0;
    // A table without a metatable is no proxy: no look-up of the machinery (the coders ask this of
    // every root value they decode).
    if (!lua_getmetatable(L, index)) return 0;
    lua_pop(L, 1);
    index = lua_absindex(L, index);
    int top = lua_gettop(L);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, moonblade_state_machinery_key) != LUA_TUSERDATA) {
        lua_settop(L, top);
        return 0;
    }
    int m = top + 1;
    if (has_metatable(L, m, index, M_VIEW_MT)) {
        lookup(L, m, M_VIEW, index);
    } else if (has_metatable(L, m, index, M_DRAFT_MT)) {
        lookup(L, m, M_REC, index);
        draft_record *record = lua_touserdata(L, -1);
        if (!record) {
            lua_settop(L, top);
            return 0;
        }
        lua_getiuservalue(L, -1, record->has_copy ? R_COPY : R_BASE);
        lua_replace(L, -2);
    } else {
        lua_settop(L, top);
        return 0;
    }
    lua_remove(L, m);
    return 1;
}
