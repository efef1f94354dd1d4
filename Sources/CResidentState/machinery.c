// The resident state's machinery: Immer-style drafts (drafts.c), read-only views (views.c) and views
// put back into a draft (stand_ins.c), finishing a draft into the next version (finishing.c), and
// here the functions the host calls (see LuaResidentState in MoonbladeResidentState). Invariant: a
// dispatch is one transaction: `apply` leaves the resident versions untouched until Swift commits
// the version it returns, and after an error (`abandon`) nothing of the failed updater stays writable.
//
// It is C because a draft's metamethods run on every read and write a Lua updater makes: as Lua they
// were most of a small dispatch's cost (interpreted, and each instruction under the count hook). C
// functions called from Lua may raise (an error at the plugin's line, a memory error), so nothing here
// runs with a Swift frame below it except `push_plain`, which never raises. Copies
// are charged to the guest's instruction budget, like `table.move`.
//
// The machinery is a full userdata (`state_machine`), every function's upvalue 1; its user values
// are the tables resident.h lists (M_*). A draft's record, a userdata found in the weak-keyed REC,
// holds its base, copy, change record, children and, for a child, its parent, key and proxy (R_*).
// The root draft's record is one for every `apply` (ROOT_RECORD), found through its proxy's address:
// a dispatch's root draft costs its proxy, and a change record the next `apply` empties.

#include "resident.h"

const char *moonblade_state_chunk_name(void) { return "moonblade/state.lua"; }

/// Registry key of the machinery (its userdata), for `push_plain`.
static const char machinery_key[] = "moonblade.state.machinery";

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
    rs_end_session(L, m);  // a failed apply that `abandon` did not end (nothing to do otherwise)
    rs_clear_changes(L, m);
    machine->live_session = ++machine->last_session;
    machine->depth = 0;
    machine->finishing = 0;
    int is_table = lua_type(L, 1) == LUA_TTABLE;
    if (is_table) {
        rs_new_root_draft(L, machine, m, 1);
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
        rs_end_session(L, m);
        return 3;
    }
    machine->finishing = 1;
    int unchanged;
    if (!lua_isnil(L, result)) {
        rs_resolve(L, m, result);
        if (root_record) rs_file_root_changes(L, m, root_record, lua_gettop(L));
        unchanged = lua_rawequal(L, -1, 1);
    } else if (is_table) {
        rs_finalize(L, m, root_record);
        // The root's draft finished as the new root: its copy, with its change record, or its base.
        unchanged = machine->root_record->finalized != FINAL_COPY;
        machine->has_root_changes = !unchanged;
    } else {
        lua_pushvalue(L, 1);
        unchanged = 1;
    }
    int changed = machine->change_count > 0 || machine->has_root_changes;
    if (changed) lua_pushinteger(L, machine->last_session); else lua_pushnil(L);
    lua_pushboolean(L, unchanged);
    machine->finishing = 0;
    rs_end_session(L, m);
    return 3;
}

/// `abandon()`: after an `apply` failed, makes its drafts read-only. Returns whether it failed while
/// finishing the state its updater left (else the updater itself failed).
static int state_abandon(lua_State *L) {
    state_machine *machine = lua_touserdata(L, MACHINE);
    lua_pushboolean(L, machine->finishing);
    machine->finishing = 0;
    rs_end_session(L, MACHINE);
    return 1;
}

/// `view(value)`: a read-only view of a resident table; any other value as it is.
static int state_view(lua_State *L) {
    lua_settop(L, 1);
    if (lua_type(L, 1) == LUA_TTABLE) rs_push_view(L, MACHINE, 1, 0, 0);
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

/// The plain table the proxy at `index` (a draft or a view) stands for: a view's resident table, a
/// draft's copy (or, unwritten, its base). Raw reads only: never raises (see `moonblade_proxy_class`).
static int push_plain(lua_State *L, int index) {
    if (!lua_checkstack(L, 4)) return 0;
    index = lua_absindex(L, index);
    int top = lua_gettop(L);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, machinery_key) != LUA_TUSERDATA) {
        lua_settop(L, top);
        return 0;
    }
    int m = top + 1;
    if (has_metatable(L, m, index, M_VIEW_MT)) {
        lookup(L, m, M_VIEW, index);
    } else if (has_metatable(L, m, index, M_DRAFT_MT)) {
        state_machine *machine = lua_touserdata(L, m);
        draft_record *record;
        if (lua_topointer(L, index) == machine->root_proxy) {
            lua_getiuservalue(L, m, M_ROOT_RECORD);
            record = machine->root_record;
        } else {
            lookup(L, m, M_REC, index);
            record = lua_touserdata(L, -1);
        }
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

static const moonblade_proxy_class proxy_class = {push_plain};

/// A proxy's metatable, `name` for `getmetatable`; `shared`, the name of what it shows when every plugin
/// may hold the same proxy (a view), which the sandbox's `rawset` then refuses; the coders find the
/// plain table it stands for through `proxy_class`.
static void proxy_metatable(
    lua_State *L, int m, int which, const char *name, const char *shared, const luaL_Reg *methods) {
    lua_createtable(L, 0, 6);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__metatable");
    if (shared) {
        lua_pushstring(L, shared);
        lua_setfield(L, -2, moonblade_read_only_field);
    }
    lua_pushlightuserdata(L, (void *)&proxy_class);
    lua_rawsetp(L, -2, &moonblade_proxy_key);
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
    proxy_metatable(L, m, M_DRAFT_MT, "state draft", NULL, rs_draft_methods);
    proxy_metatable(L, m, M_VIEW_MT, "state view", "the state (a view)", rs_view_methods);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, m, M_ARRAY);
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, m, M_OBJECT);
    rs_push_copy_sequence(L);
    lua_setiuservalue(L, m, M_COPY_SEQUENCE);
    rs_make_root_record(L, machine, m);
    lua_pushvalue(L, m);
    lua_rawsetp(L, LUA_REGISTRYINDEX, machinery_key);

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
    if (machine->has_root_changes) {
        lua_getiuservalue(L, machinery, M_ROOT_RECORD);
        lua_getiuservalue(L, -1, R_CHANGES);
        lua_replace(L, -2);
    } else {
        lua_pushnil(L);
    }
    return machine->change_count > 0 || machine->has_root_changes;
}

void moonblade_state_replace_with_tables(lua_State *L, int machinery) {
    machinery = lua_absindex(L, machinery);
    lua_getiuservalue(L, machinery, M_TABLES);
    lua_replace(L, machinery);
}

void moonblade_state_drop_changes(lua_State *L, int machinery) {
    rs_clear_changes(L, lua_absindex(L, machinery));
}
