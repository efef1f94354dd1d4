// Drafts, Immer's model. Invariant: an updater never writes a resident table. A draft is an empty
// proxy whose record (in REC) holds its `base`, the resident table; the first write makes `copy`, a
// shallow copy of the base put in place of it in the parent's copy, so only the tables on the path to
// a write are copied; `changes` lists the keys written. A draft lives as long as its updater: after
// it, every use raises at the plugin's line (revoked).

#include "resident.h"

/// Pushes a new draft of the table at `base`, the child at `key` of the draft whose record is at
/// `parent`, then its record.
void rs_new_draft(lua_State *L, state_machine *machine, int m, int base, int parent, int key, lua_Integer session) {
    base = lua_absindex(L, base);
    lua_createtable(L, 0, 0);
    int proxy = lua_gettop(L);
    lua_getiuservalue(L, m, M_DRAFT_MT);
    lua_setmetatable(L, proxy);
    draft_record *record = lua_newuserdatauv(L, sizeof *record, R_COUNT);
    *record = (draft_record){.session = session, .machine = machine};
    int r = lua_gettop(L);
    lua_pushvalue(L, base);
    lua_setiuservalue(L, r, R_BASE);
    // Its proxy goes into its parent's copy when the child is first written.
    lua_pushvalue(L, proxy);
    lua_setiuservalue(L, r, R_PROXY);
    lua_pushvalue(L, parent);
    lua_setiuservalue(L, r, R_PARENT);
    lua_pushvalue(L, key);
    lua_setiuservalue(L, r, R_KEY);
    lua_pushvalue(L, proxy);
    lua_pushvalue(L, r);
    lua_rawset(L, RECORDS);
}

/// Makes the root draft's record, which every `apply` resets (ROOT_RECORD).
void rs_make_root_record(lua_State *L, state_machine *machine, int m) {
    draft_record *record = lua_newuserdatauv(L, sizeof *record, R_ROOT_COUNT);
    *record = (draft_record){.machine = machine, .is_root = 1};
    machine->root_record = record;
    lua_setiuservalue(L, m, M_ROOT_RECORD);
}

/// Pushes a draft of the root table at `base` for the live session, then its record: a new proxy (a
/// root draft kept past its updater is revoked, as any draft is) and the one root record, reset. The
/// proxy is not in REC: `record_of` knows the live root's, and an earlier root's finds no record.
void rs_new_root_draft(lua_State *L, state_machine *machine, int m, int base) {
    base = lua_absindex(L, base);
    lua_createtable(L, 0, 0);
    lua_getiuservalue(L, m, M_DRAFT_MT);
    lua_setmetatable(L, -2);
    machine->root_proxy = lua_topointer(L, -1);
    draft_record *record = machine->root_record;
    lua_getiuservalue(L, m, M_ROOT_RECORD);
    record->session = machine->live_session;
    record->listed = 0;
    record->has_copy = record->finalized = record->may_list_twice = record->has_children = 0;
    record->stands = record->busy = record->holds_tables = 0;
    lua_pushvalue(L, base);
    lua_setiuservalue(L, -2, R_BASE);
}

/// Up to this many keys, the root's change record is emptied by the next `apply` and made its root's,
/// so a small dispatch makes no table for it; a longer one is left to the collector.
enum { REUSED_RECORD_LIMIT = 16 };

/// Lists `key` in the change record of the draft whose record is at `r` (its base at `base`), making
/// the record on its first key. The root's is the last `apply`'s root's, emptied past its first key
/// (the decode that read it is over), unless it grew long.
static void list_key(lua_State *L, int r, int base, int key) {
    draft_record *record = lua_touserdata(L, r);
    if (record->listed > 0) {
        lua_getiuservalue(L, r, R_CHANGES);
    } else if (record->is_root && record->changes_length <= REUSED_RECORD_LIMIT + 1 &&
               lua_getiuservalue(L, r, R_CHANGES) == LUA_TTABLE) {
        for (lua_Integer i = record->changes_length; i > 2; i--) {
            lua_pushnil(L);
            lua_rawseti(L, -2, i);
        }
        lua_pushvalue(L, base);
        lua_rawseti(L, -2, 1);
    } else {
        if (record->is_root && record->changes_length <= REUSED_RECORD_LIMIT + 1) lua_pop(L, 1);
        lua_createtable(L, 2, 0);  // the base and the first key
        lua_pushvalue(L, base);
        lua_rawseti(L, -2, 1);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, r, R_CHANGES);
    }
    lua_pushvalue(L, key);
    lua_rawseti(L, -2, 1 + ++record->listed);
    record->changes_length = record->listed + 1;
    lua_pop(L, 1);
}

/// Sets `key` to `value` in the copy of the draft whose record is at `r` (made writable before),
/// listing the key in its change record unless it is listed already. Returns 0 when the copy held
/// `value` there already (nothing written).
int rs_draft_write(lua_State *L, int m, int r, int key, int value) {
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
    draft_record *record = lua_touserdata(L, r);
    if (same_value(L, -1, -2)) {
        list_key(L, r, top + 2, key);
    } else if (same_value(L, value, -2)) {
        record->may_list_twice = 1;
    }
    if (lua_type(L, value) == LUA_TTABLE) record->holds_tables = 1;
    lua_settop(L, copy);
    lua_pushvalue(L, key);
    lua_pushvalue(L, value);
    lua_rawset(L, copy);
    lua_settop(L, top);
    return 1;
}

/// Makes the draft whose record is at `r` writable: a shallow copy of its base, put in place of the
/// base in its parent's copy (made writable first). Pushes the copy.
void rs_prepare(lua_State *L, int m, int r) {
    luaL_checkstack(L, 8, "the state is nested too deep");
    draft_record *record = lua_touserdata(L, r);
    int top = lua_gettop(L);
    lua_getiuservalue(L, r, R_BASE);
    record->base_length = rs_shallow_copy(L, m, -1, record->is_root ? record : NULL);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, r, R_COPY);
    record->has_copy = 1;
    if (!record->is_root && lua_getiuservalue(L, r, R_PARENT) == LUA_TUSERDATA) {
        int p = lua_gettop(L);
        draft_record *parent = lua_touserdata(L, p);
        if (!parent->has_copy) rs_prepare(L, m, p); else lua_getiuservalue(L, p, R_COPY);
        int siblings = lua_gettop(L);
        lua_getiuservalue(L, r, R_KEY);
        lua_getiuservalue(L, r, R_PROXY);
        rs_draft_write(L, m, p, siblings + 1, siblings + 2);
    }
    lua_settop(L, top + 2);
    lua_remove(L, top + 1);
}

/// Pushes what reading `key` from the draft whose record is at `r` gives: a value, or for a table of
/// the resident state the child draft standing for it. With `stand`, below a draft standing for the
/// table a view shows, that child stands for the table below (or is the draft already standing for
/// it); `rs_stand_for_shown` reads without, to make the stand-in itself.
void rs_draft_read(lua_State *L, int m, int r, int key, int stand) {
    draft_record *record = lua_touserdata(L, r);
    lua_getiuservalue(L, r, record->has_copy ? R_COPY : R_BASE);
    lua_pushvalue(L, key);
    int type = lua_rawget(L, -2);
    lua_replace(L, -2);
    if (type != LUA_TTABLE) return;
    int value = lua_gettop(L);
    if (is_proxy(L, m, value)) return;
    state_machine *machine = record->machine;
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
        if (rs_push_standing_child(L, m, r, key, value)) {
            lua_replace(L, value);
            lua_settop(L, value);
            return;
        }
        node = lua_gettop(L);
    }
    rs_new_draft(L, machine, m, value, r, key, record->session);
    if (node && !lua_isnil(L, node)) rs_stands_for(L, m, lua_gettop(L), node);
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
/// when its updater has returned (the draft is revoked). The machine is read through the record, not
/// the upvalue: one Lua call less on every read and write of a draft.
static draft_record *live_record(lua_State *L) {
    draft_record *record = record_of(L, 1);
    if (!record || record->session != record->machine->live_session) rs_raise_revoked(L);
    return record;
}

static int draft_index(lua_State *L) {
    live_record(L);
    rs_draft_read(L, MACHINE, 3, 2, 1);
    return 1;
}

static int draft_newindex(lua_State *L) {
    int m = MACHINE;
    draft_record *record = live_record(L);  // at 4
    state_machine *machine = record->machine;
    int key_type = lua_type(L, 2);
    if (key_type == LUA_TNIL) return luaL_error(L, "table index is nil");
    if (key_type == LUA_TNUMBER && !lua_isinteger(L, 2) && isnan(lua_tonumber(L, 2))) {
        return luaL_error(L, "table index is NaN");
    }
    int stored = lua_type(L, 3) == LUA_TTABLE ? rs_settle_stored_table(L, m, machine->live_session) : STORED_AS_IS;
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
            rs_prepare(L, m, 4);  // at top + 2
            list_key(L, 4, top + 1, 2);
            if (lua_type(L, 3) == LUA_TTABLE) record->holds_tables = 1;
            lua_pushvalue(L, 2);
            lua_pushvalue(L, 3);
            lua_rawset(L, top + 2);
        }
    } else {
        wrote = rs_draft_write(L, m, 4, 2, 3);
    }
    if (stored == STORED_VIEW) {
        rs_stand_for_shown(L, m);
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
    // Called by hand, it may be given any value: only a draft has a record to read through (and a
    // root draft of an earlier updater has none: revoked).
    if (!record_of(L, 1)) {  // at 3
        if (lua_type(L, 1) == LUA_TTABLE && has_metatable(L, MACHINE, 1, M_DRAFT_MT)) rs_raise_revoked(L);
        return luaL_error(L, "the iterator of pairs(draft) needs a state draft, got a %s", luaL_typename(L, 1));
    }
    live_record(L);
    lua_pop(L, 1);
    lua_pushvalue(L, 2);
    while (lua_next(L, lua_upvalueindex(3))) {
        lua_pop(L, 1);
        int key = lua_gettop(L);
        rs_draft_read(L, MACHINE, 3, key, 1);
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

const luaL_Reg rs_draft_methods[] = {
    {"__index", draft_index}, {"__newindex", draft_newindex}, {"__len", draft_len}, {"__pairs", draft_pairs},
    {NULL, NULL}};

void rs_raise_revoked(lua_State *L) {
    // The metamethod may be called from C (`pairs`): the place is the first Lua function's line.
    lua_Debug frame;
    int level = 1;
    while (lua_getstack(L, level, &frame) && lua_getinfo(L, "l", &frame) && frame.currentline < 0) level++;
    luaL_where(L, level);
    lua_pushstring(L, "this state draft was revoked: its updater has returned");
    lua_concat(L, 2);
    lua_error(L);
}
