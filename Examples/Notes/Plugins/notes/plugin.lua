-- The example app's plugin: a side effect that asks Swift for a number, and an updater that stores.
return {
  name = "notes",
  version = 1,
  updaters = {
    insert = function(state, note)
      if type(note.text) ~= "string" or note.text == "" then error("a note needs some text") end
      state.notes[#state.notes + 1] = { id = note.id, text = note.text }
    end,
  },
  side_effects = {
    add = function(ctx, payload)
      local id = ctx.deps.numbers.next()          -- Swift's NoteNumbers, awaited
      ctx.dispatch("notes.insert", { id = id, text = payload.text })
      return id
    end,
  },
}
