// Starts `rulebook lsp` (the command in the setting rules.server.command) for .rules files.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("rules").get("server.command");
  client = new LanguageClient(
    "rules",
    "Rules language server",
    { command, args },
    {
      documentSelector: [{ scheme: "file", language: "rules" }],
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.rules") },
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
