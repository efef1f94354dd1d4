// The safe standard library, and the sandbox environments untrusted (plugin) code runs in. Invariant:
// no plugin changes what another plugin or the host sees, and none reaches what the design leaves out.
//
// `moonblade_open_libraries` opens the allow-listed libraries into the VM's globals, which stay the
// host's own (trusted) environment, guards the functions that could outlive a limit (guards.c) and
// installs the step-counting pattern functions (Patterns/). It also prepares a template from which
// `moonblade_push_sandbox` makes one fresh environment per plugin:
// - the base functions, and each library as a read-only view (an empty table reading through to the
//   shared library, refusing writes, `rawset` and `setmetatable`), so no plugin changes what another
//   sees; the string metatable, shared by every string, is locked the same way;
// - `_G` is the environment itself; reading a global that is not defined is an error naming it;
// - `load` compiles text only, into the sandbox unless given another environment;
// - `collectgarbage` answers "count" only; `setmetatable` refuses `__gc` (finalizers run with the
//   count hook off, so no limit could stop one).

#include "../guest.h"
#include <lua5.4/lualib.h>
#include <string.h>

const char moonblade_read_only_field[] = "moonblade.read_only";
/// Registry keys: the globals every sandbox starts with, and the metatable every sandbox has.
static const char sandbox_template_key[] = "moonblade.sandbox_template";
static const char sandbox_metatable_key[] = "moonblade.sandbox_metatable";

// MARK: - Read-only views

static int refuse_write(lua_State *L) {
    const char *name = lua_tostring(L, lua_upvalueindex(1));
    if (lua_type(L, 2) == LUA_TSTRING) {
        return luaL_error(L, "%s is read-only (shared by every plugin): cannot set '%s'", name, lua_tostring(L, 2));
    }
    return luaL_error(L, "%s is read-only (shared by every plugin)", name);
}

/// The iterator `pairs` gets for a view: walks the shared table without handing it out.
static int read_only_next(lua_State *L) {
    lua_settop(L, 2);
    if (lua_next(L, lua_upvalueindex(1))) return 2;
    lua_pushnil(L);
    return 1;
}

static int read_only_pairs(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, read_only_next, 1);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/// Pushes a read-only view of the table at `index`, called `name` in messages.
static void push_read_only(lua_State *L, int index, const char *name) {
    int table = lua_absindex(L, index);
    lua_createtable(L, 0, 0);  // always empty, so every read and write goes through the metatable
    lua_createtable(L, 0, 5);
    lua_pushvalue(L, table);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, name);
    lua_pushcclosure(L, refuse_write, 1);
    lua_setfield(L, -2, "__newindex");
    lua_pushvalue(L, table);
    lua_pushcclosure(L, read_only_pairs, 1);
    lua_setfield(L, -2, "__pairs");
    lua_pushstring(L, name);
    lua_setfield(L, -2, moonblade_read_only_field);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");  // getmetatable sees false; setmetatable refuses
    lua_setmetatable(L, -2);
}

int moonblade_read_only(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    push_read_only(L, 1, luaL_checkstring(L, 2));
    return 1;
}

// MARK: - What sandboxes get instead of the base functions

/// Steps of the budget one byte of text to compile costs: parsing a byte costs about as much as a few
/// instructions, and compiling runs none (a loop loading a huge text would run on between two hooks).
enum { moonblade_load_steps_per_byte = 4 };

/// The reader `load` gets in place of a script's reader function (upvalue 1): each piece it returns
/// is charged like text given at once (a reader returning the same megabyte forever kept the parser
/// going with a few instructions per megabyte).
static int charged_reader(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_call(L, 0, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
        moonblade_charge_steps(L, (long long)lua_rawlen(L, -1) * moonblade_load_steps_per_byte);
    }
    return 1;
}

/// `load` compiles text chunks only (mode forced to "t"); in a sandbox (upvalue 2) a chunk loaded
/// without an explicit environment gets the sandbox, not the host's globals.
static int load_text_only(lua_State *L) {
    // `load` tells "no env" from "env = nil" by the argument count, so keep a 4th only if given.
    int arguments = lua_gettop(L);
    if (arguments < 3) lua_settop(L, 3);
    if (arguments > 4) lua_settop(L, 4);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    if (lua_type(L, 1) == LUA_TSTRING) {
        moonblade_charge_steps(L, (long long)lua_rawlen(L, 1) * moonblade_load_steps_per_byte);
    } else if (lua_type(L, 1) == LUA_TFUNCTION) {
        lua_pushvalue(L, 1);
        lua_pushcclosure(L, charged_reader, 1);
        lua_replace(L, 1);
    }
    if (arguments < 4 && !lua_isnone(L, lua_upvalueindex(2))) lua_pushvalue(L, lua_upvalueindex(2));
    // Protected, without a message handler: Lua's parser inherits the running one, so a "C stack
    // overflow" in a deeply nested chunk would come back as the host's error description (a table).
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    if (status != LUA_OK || lua_isnil(L, 1)) moonblade_raise_if_stopped(L);  // a memory error while compiling
    if (status != LUA_OK) return lua_error(L);  // a bad argument, raised again
    return lua_gettop(L);
}

static int undefined_global(lua_State *L) {
    if (lua_type(L, 2) == LUA_TSTRING) return luaL_error(L, "undefined global '%s'", lua_tostring(L, 2));
    return luaL_error(L, "undefined global (a %s key)", luaL_typename(L, 2));
}

static int collectgarbage_count(lua_State *L) {
    const char *option = luaL_optstring(L, 1, "collect");
    if (strcmp(option, "count") != 0) {
        return luaL_error(L, "collectgarbage(\"%s\") is not available to plugins, only \"count\"", option);
    }
    lua_pushnumber(L, (lua_Number)lua_gc(L, LUA_GCCOUNT, 0) + (lua_Number)lua_gc(L, LUA_GCCOUNTB, 0) / 1024);
    return 1;
}

static int rawset_writable(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (luaL_getmetafield(L, 1, moonblade_read_only_field) != LUA_TNIL) {
        return luaL_error(L, "rawset: %s is read-only (shared by every plugin)", lua_tostring(L, -1));
    }
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

/// Refuses `setmetatable` on a state draft or view with what to do instead: Lua's own "cannot change
/// a protected metatable" names neither what was refused nor why.
static void refuse_state_metatable(lua_State *L) {
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TSTRING) return;
    const char *kind = lua_tostring(L, -1);
    if (strcmp(kind, "state draft") == 0) {
        luaL_error(L, "setmetatable: a state draft cannot be given a metatable (it is a proxy that records "
                      "the updater's writes); set the metatable on a plain table you build, or keep the "
                      "behaviour in functions that take the state (the new state keeps a table's raw contents)");
    }
    if (strcmp(kind, "state view") == 0) {
        luaL_error(L, "setmetatable: the state is a read-only view and cannot be given a metatable; copy "
                      "what you need into a table of your own, or change the state through an updater");
    }
    lua_pop(L, 1);
}

/// `setmetatable` (upvalue 1) without `__gc`, and not on the state.
static int setmetatable_without_finalizer(lua_State *L) {
    if (lua_type(L, 1) == LUA_TTABLE) refuse_state_metatable(L);
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL) {
            return luaL_error(L, "setmetatable: __gc is not available to plugins (a finalizer would run "
                                 "where no limit can stop it)");
        }
        lua_pop(L, 1);
    }
    moonblade_call_original(L, 1);
    return 1;
}

// MARK: - Opening the libraries and preparing the sandbox

/// Builds the sandbox template and metatable from the globals just opened, and locks the string
/// metatable. Runs protected (it allocates).
static void prepare_sandbox(lua_State *L) {
    lua_createtable(L, 0, 32);
    int template = lua_gettop(L);
    lua_pushglobaltable(L);
    int globals = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, globals)) {
        const char *name = lua_tostring(L, -2);
        if (strcmp(name, "_G") == 0 || strcmp(name, "load") == 0) {  // both belong to each sandbox
            lua_pop(L, 1);
            continue;
        }
        if (lua_type(L, -1) == LUA_TTABLE) {  // a library
            push_read_only(L, -1, name);
            lua_replace(L, -2);
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, template);
    }
    lua_pop(L, 1);  // globals
    lua_pushcfunction(L, collectgarbage_count);
    lua_setfield(L, template, "collectgarbage");
    lua_pushcfunction(L, rawset_writable);
    lua_setfield(L, template, "rawset");
    lua_getfield(L, template, "setmetatable");
    lua_pushcclosure(L, setmetatable_without_finalizer, 1);
    lua_setfield(L, template, "setmetatable");

    // Strings share one metatable whose __index is the real string library: scripts see a locked
    // stand-in whose __index is the read-only view.
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_createtable(L, 0, 1);
    lua_getfield(L, template, LUA_STRLIBNAME);
    lua_setfield(L, -2, "__index");
    push_read_only(L, -1, "the string metatable");
    lua_setfield(L, -3, "__metatable");
    lua_pop(L, 3);  // stand-in, string metatable, ""

    lua_setfield(L, LUA_REGISTRYINDEX, sandbox_template_key);
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, undefined_global);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setfield(L, LUA_REGISTRYINDEX, sandbox_metatable_key);
}

/// Opens the libraries scripts may use, minus what could reach outside the VM, then prepares the
/// sandbox. Runs protected (as a `lua_CFunction` under `lua_pcall`) because opening allocates.
static int open_safe_libraries(lua_State *L) {
    static const luaL_Reg libraries[] = {
        {LUA_GNAME, luaopen_base},          {LUA_COLIBNAME, luaopen_coroutine},
        {LUA_TABLIBNAME, luaopen_table},    {LUA_STRLIBNAME, luaopen_string},
        {LUA_MATHLIBNAME, luaopen_math},    {LUA_UTF8LIBNAME, luaopen_utf8},
        {NULL, NULL},
    };
    for (const luaL_Reg *library = libraries; library->func; library++) {
        luaL_requiref(L, library->name, library->func, 1);
        lua_pop(L, 1);
    }
    // os: only the clock and calendar functions.
    lua_pushcfunction(L, luaopen_os);
    lua_call(L, 0, 1);
    lua_createtable(L, 0, 3);
    static const char *const os_allowed[] = {"time", "clock", "date", NULL};
    for (const char *const *name = os_allowed; *name; name++) {
        lua_getfield(L, -2, *name);
        lua_setfield(L, -2, *name);
    }
    lua_setglobal(L, "os");
    lua_pop(L, 1);
    // Functions that reach the file system, or load precompiled (unverifiable) bytecode.
    static const char *const base_removed[] = {"dofile", "loadfile", NULL};
    for (const char *const *name = base_removed; *name; name++) {
        lua_pushnil(L);
        lua_setglobal(L, *name);
    }
    lua_getglobal(L, "load");
    lua_pushcclosure(L, load_text_only, 1);
    lua_setglobal(L, "load");
    lua_getglobal(L, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    moonblade_guard_libraries(L);
    moonblade_install_pattern_functions(L);
    prepare_sandbox(L);
    return 0;
}

int moonblade_open_libraries(lua_State *L) {
    lua_pushcfunction(L, open_safe_libraries);
    return lua_pcall(L, 0, 0, 0);
}

// MARK: - Sandboxes

static int new_sandbox(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, sandbox_template_key);
    int template = lua_gettop(L);
    lua_createtable(L, 0, 40);
    int sandbox = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, template)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, sandbox);
    }
    lua_pushvalue(L, sandbox);
    lua_setfield(L, sandbox, LUA_GNAME);
    lua_getglobal(L, "load");  // the host's text-only load; its upvalue is Lua's own
    lua_getupvalue(L, -1, 1);
    lua_pushvalue(L, sandbox);
    lua_pushcclosure(L, load_text_only, 2);
    lua_setfield(L, sandbox, "load");
    lua_pop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, sandbox_metatable_key);
    lua_setmetatable(L, sandbox);
    return 1;
}

/// Pushes a fresh sandbox environment onto `L`. Returns a Lua status: the work runs protected.
int moonblade_push_sandbox(lua_State *L) {
    lua_pushcfunction(L, new_sandbox);
    return lua_pcall(L, 0, 1, 0);
}
