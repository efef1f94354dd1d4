---@meta moonblade-spec
-- Editor types for Moonblade spec files, written by `moonblade types`: do not edit.

---A spy or stub: a callable that records its calls as busted does.
---@class moonblade.Spy
---@field calls { vals: any[] }[] Each call's arguments.
---@field returnvals { vals: any[] }[] Each call's results.
---@field revert? fun() Puts the spied-on or stubbed function back.
---@field returns fun(...): moonblade.Spy A table stub's answer from now on.
---@field invokes fun(body: function): moonblade.Spy A table stub's answering function.
---@overload fun(...): any

---luassert's vocabulary: `is`, `are`, `was`, `has`, `does` read along, `not` and `no` negate
---(assert.are_not.same, assert.has_no.errors); an unknown name fails at its line.
---@class moonblade.Assert
---@field boolean fun(...)
---@field is_boolean fun(...)
---@field is_not_boolean fun(...)
---@field are_boolean fun(...)
---@field are_not_boolean fun(...)
---@field has_boolean fun(...)
---@field has_no_boolean fun(...)
---@field called fun(...)
---@field is_called fun(...)
---@field is_not_called fun(...)
---@field are_called fun(...)
---@field are_not_called fun(...)
---@field has_called fun(...)
---@field has_no_called fun(...)
---@field called_at_least fun(...)
---@field is_called_at_least fun(...)
---@field is_not_called_at_least fun(...)
---@field are_called_at_least fun(...)
---@field are_not_called_at_least fun(...)
---@field has_called_at_least fun(...)
---@field has_no_called_at_least fun(...)
---@field called_at_most fun(...)
---@field is_called_at_most fun(...)
---@field is_not_called_at_most fun(...)
---@field are_called_at_most fun(...)
---@field are_not_called_at_most fun(...)
---@field has_called_at_most fun(...)
---@field has_no_called_at_most fun(...)
---@field called_with fun(...)
---@field is_called_with fun(...)
---@field is_not_called_with fun(...)
---@field are_called_with fun(...)
---@field are_not_called_with fun(...)
---@field has_called_with fun(...)
---@field has_no_called_with fun(...)
---@field equal fun(...)
---@field is_equal fun(...)
---@field is_not_equal fun(...)
---@field are_equal fun(...)
---@field are_not_equal fun(...)
---@field has_equal fun(...)
---@field has_no_equal fun(...)
---@field error fun(...)
---@field is_error fun(...)
---@field is_not_error fun(...)
---@field are_error fun(...)
---@field are_not_error fun(...)
---@field has_error fun(...)
---@field has_no_error fun(...)
---@field error_match fun(...)
---@field is_error_match fun(...)
---@field is_not_error_match fun(...)
---@field are_error_match fun(...)
---@field are_not_error_match fun(...)
---@field has_error_match fun(...)
---@field has_no_error_match fun(...)
---@field error_matches fun(...)
---@field is_error_matches fun(...)
---@field is_not_error_matches fun(...)
---@field are_error_matches fun(...)
---@field are_not_error_matches fun(...)
---@field has_error_matches fun(...)
---@field has_no_error_matches fun(...)
---@field errors fun(...)
---@field is_errors fun(...)
---@field is_not_errors fun(...)
---@field are_errors fun(...)
---@field are_not_errors fun(...)
---@field has_errors fun(...)
---@field has_no_errors fun(...)
---@field false fun(...)
---@field is_false fun(...)
---@field is_not_false fun(...)
---@field are_false fun(...)
---@field are_not_false fun(...)
---@field has_false fun(...)
---@field has_no_false fun(...)
---@field falsy fun(...)
---@field is_falsy fun(...)
---@field is_not_falsy fun(...)
---@field are_falsy fun(...)
---@field are_not_falsy fun(...)
---@field has_falsy fun(...)
---@field has_no_falsy fun(...)
---@field function fun(...)
---@field is_function fun(...)
---@field is_not_function fun(...)
---@field are_function fun(...)
---@field are_not_function fun(...)
---@field has_function fun(...)
---@field has_no_function fun(...)
---@field match fun(...)
---@field is_match fun(...)
---@field is_not_match fun(...)
---@field are_match fun(...)
---@field are_not_match fun(...)
---@field has_match fun(...)
---@field has_no_match fun(...)
---@field matches fun(...)
---@field is_matches fun(...)
---@field is_not_matches fun(...)
---@field are_matches fun(...)
---@field are_not_matches fun(...)
---@field has_matches fun(...)
---@field has_no_matches fun(...)
---@field near fun(...)
---@field is_near fun(...)
---@field is_not_near fun(...)
---@field are_near fun(...)
---@field are_not_near fun(...)
---@field has_near fun(...)
---@field has_no_near fun(...)
---@field nil fun(...)
---@field is_nil fun(...)
---@field is_not_nil fun(...)
---@field are_nil fun(...)
---@field are_not_nil fun(...)
---@field has_nil fun(...)
---@field has_no_nil fun(...)
---@field number fun(...)
---@field is_number fun(...)
---@field is_not_number fun(...)
---@field are_number fun(...)
---@field are_not_number fun(...)
---@field has_number fun(...)
---@field has_no_number fun(...)
---@field returned_with fun(...)
---@field is_returned_with fun(...)
---@field is_not_returned_with fun(...)
---@field are_returned_with fun(...)
---@field are_not_returned_with fun(...)
---@field has_returned_with fun(...)
---@field has_no_returned_with fun(...)
---@field same fun(...)
---@field is_same fun(...)
---@field is_not_same fun(...)
---@field are_same fun(...)
---@field are_not_same fun(...)
---@field has_same fun(...)
---@field has_no_same fun(...)
---@field string fun(...)
---@field is_string fun(...)
---@field is_not_string fun(...)
---@field are_string fun(...)
---@field are_not_string fun(...)
---@field has_string fun(...)
---@field has_no_string fun(...)
---@field table fun(...)
---@field is_table fun(...)
---@field is_not_table fun(...)
---@field are_table fun(...)
---@field are_not_table fun(...)
---@field has_table fun(...)
---@field has_no_table fun(...)
---@field true fun(...)
---@field is_true fun(...)
---@field is_not_true fun(...)
---@field are_true fun(...)
---@field are_not_true fun(...)
---@field has_true fun(...)
---@field has_no_true fun(...)
---@field truthy fun(...)
---@field is_truthy fun(...)
---@field is_not_truthy fun(...)
---@field are_truthy fun(...)
---@field are_not_truthy fun(...)
---@field has_truthy fun(...)
---@field has_no_truthy fun(...)
---@field is moonblade.Assert
---@field are moonblade.Assert
---@field was moonblade.Assert
---@field has moonblade.Assert
---@field does moonblade.Assert
---@field not moonblade.Assert
---@field no moonblade.Assert
---@field is_not moonblade.Assert
---@field are_not moonblade.Assert
---@field was_not moonblade.Assert
---@field has_no moonblade.Assert
---@field spy fun(s: moonblade.Spy): moonblade.Assert Then .was.called(n), .called_with(...)
---@field stub fun(s: moonblade.Spy): moonblade.Assert
---@overload fun(value: any, message?: string): any

---@param body fun()
function after_each(body) end

---The state the Lua updater `name` leaves when run on `state` outside the store (no interceptor or
---rule runs, the store's state is untouched), as `moonblade replay` runs it; its error raised.
---@param state moonblade.State
---@param name string
---@param payload? any
---@return moonblade.State
function apply_updater(state, name, payload) end

---@param body fun()
function before_each(body) end

---The clock the plugin's ctx.deps.clock reads: it stands at 1970-01-01T00:00:00Z until set.
---@class moonblade.SpecClock
---@field set fun(time: number|string) Seconds since 1970, or an ISO 8601 time ("2026-11-21T15:30:00Z").
---@field advance fun(seconds: number) Moves the clock on.
---@field now fun(): number Seconds since 1970.
---@type moonblade.SpecClock
clock = nil

---Same as describe.
---@param name string
---@param body fun()
function context(name, body) end

---@param name string
---@param body fun()
function describe(name, body) end

---Runs the item to completion (and what it set off); a side effect's result, or its error raised.
---@param name string
---@param payload? any
---@return any
function dispatch(name, payload) end

---Runs when the case ends, passed or failed.
---@param body fun()
function finally(body) end

---A case; `#words` in its name are tags. Without a body it is pending.
---@param name string
---@param body? fun()
function it(name, body) end

---What the plugin logged through ctx.deps.log, oldest first: { level, message, plugin, <fields> }.
---@return { level: string, message: string, plugin: string?, [string]: string }[]
function logs() end

---A case that is not run yet.
---@param name string
function pending(name) end

---Posts a notification: its on_notification rules fire, and what they set off settles.
---@param name string
---@param payload? any
function post(name, payload) end

---The state to start from, or, once started, the state from now on.
---@param value moonblade.State
function set_state(value) end

---Runs before the block's before_each hooks (each case has its own VM).
---@param body fun()
function setup(body) end

---@class moonblade.SpyModule
---@field new fun(body?: function): moonblade.Spy
---@field on fun(target: table, key: any): moonblade.Spy
---@type moonblade.SpyModule
spy = nil

---A copy of the store's state.
---@return moonblade.State
function state() end

---The case's in-memory storage: what the plugin's ctx.deps.storage reads and writes.
---@class moonblade.SpecStorage
---@field read fun(key: string): any The value under key, or nil.
---@field write fun(key: string, value: any) Stores value under key; nil removes it.
---@type moonblade.SpecStorage
storage = nil

---`stub("group.name", function)` answers ctx.deps.group.name; `stub(table, key, ...)` replaces a
---table's function with one answering the values.
---@param target string|table
---@param ... any
---@return moonblade.Spy
function stub(target, ...) end

---Runs after the block's after_each hooks.
---@param body fun()
function teardown(body) end
