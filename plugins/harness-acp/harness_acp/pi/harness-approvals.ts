// harness-acp: ask the ACP client before every built-in tool call of pi.
// Installed by the harness-acp pi-acp profile into an isolated pi agent directory when the
// host wants built-in approvals. pi-acp turns ctx.ui.confirm into session/request_permission;
// the title marks the request and the message carries the call as JSON.
export default function (pi: any) {
  pi.on("tool_call", async (event: any, ctx: any) => {
    const name = String(event.toolName ?? "");
    if (name.startsWith("mcp__harness__")) return undefined; // host tools: the host decides them itself
    const call = JSON.stringify({ toolCallId: event.toolCallId, toolName: name, input: event.input ?? {} });
    const ok = await ctx.ui.confirm("harness-acp approval", call);
    if (!ok) return { block: true, reason: "The host denied this tool call." };
    return undefined;
  });
}
