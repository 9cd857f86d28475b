-- Neovim (0.11+): .rules files and the rulebook language server.
-- Copy to ~/.config/nvim/plugin/rules.lua (or require it from init.lua).
vim.filetype.add({ extension = { rules = "rules" } })

vim.lsp.config("rulebook", {
  cmd = { "rulebook", "lsp" },          -- or { "/path/to/.venv/bin/rulebook", "lsp" }
  filetypes = { "rules" },
  root_markers = { "00-manual.rules", ".git" },
})
vim.lsp.enable("rulebook")

-- The server's semantic tokens colour names by kind; its own token type "dice" (2d6) is drawn as a number:
vim.api.nvim_set_hl(0, "@lsp.type.dice.rules", { link = "@number", default = true })
-- Rename, quick fixes (vim.lsp.buf.code_action), signature help and inlay hints
-- (vim.lsp.inlay_hint.enable()) come from the server too.

-- Markdown highlighting for the prose (the server gives diagnostics, hover, definitions, completion):
vim.treesitter.language.register("markdown", "rules")
vim.api.nvim_create_autocmd("FileType", {
  pattern = "rules",
  callback = function() vim.bo.commentstring = "# %s" end,
})
-- Snippets: the server offers them as completions; LuaSnip users can also load
-- editors/vscode/snippets/ with require("luasnip.loaders.from_vscode").lazy_load({ paths = { "<repo>/editors/vscode" } })
