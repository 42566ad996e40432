// The harness-ui chat page: useChat from @ai-sdk/react against POST /api/chat.
// Bundled by build.mjs into harness_ui/static/app.js (committed; users need no Node).
import React, { useState } from "react";
import { createRoot } from "react-dom/client";
import { useChat } from "@ai-sdk/react";
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
} from "ai";

// Continue the paused turn as soon as every approval or client tool call has its answer.
function answered(options) {
  return (
    lastAssistantMessageIsCompleteWithApprovalResponses(options) ||
    lastAssistantMessageIsCompleteWithToolCalls(options)
  );
}

function show(value) {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && typeof value.value === "string") return value.value;
  return JSON.stringify(value, null, 2);
}

function toolName(part) {
  return part.type === "dynamic-tool" ? part.toolName : part.type.slice("tool-".length);
}

function ApprovalButtons({ part, onAnswer }) {
  return (
    <div className="approval" data-testid="approval-request">
      <span>This call needs your approval.</span>
      <button data-testid="approve" onClick={() => onAnswer({ id: part.approval.id, approved: true })}>
        Approve
      </button>
      <button
        data-testid="deny"
        className="deny"
        onClick={() => onAnswer({ id: part.approval.id, approved: false, reason: "denied in the chat page" })}
      >
        Deny
      </button>
    </div>
  );
}

function ClientToolPrompt({ part, onOutput }) {
  const [value, setValue] = useState("");
  const name = toolName(part);
  return (
    <form
      className="client-tool"
      data-testid="client-tool-prompt"
      onSubmit={(event) => {
        event.preventDefault();
        onOutput({ tool: name, toolCallId: part.toolCallId, output: value });
      }}
    >
      <span>The agent asks you to answer this tool call:</span>
      <input data-testid="client-tool-input" value={value} onChange={(e) => setValue(e.target.value)} />
      <button type="submit" data-testid="client-tool-send">Send result</button>
      <button
        type="button"
        className="deny"
        onClick={() =>
          onOutput({ tool: name, toolCallId: part.toolCallId, state: "output-error", errorText: value || "failed" })
        }
      >
        Report an error
      </button>
    </form>
  );
}

function ToolCard({ part, ready, onAnswer, onOutput }) {
  const name = toolName(part);
  const dynamic = part.type === "dynamic-tool";
  const kind = dynamic ? "dynamic" : part.providerExecuted ? "built-in" : "host";
  const waitingForClient = ready && part.state === "input-available" && !part.providerExecuted && !dynamic;
  return (
    <div className={`tool tool-${kind} state-${part.state}`} data-testid="tool-card" data-tool-name={name}
         data-tool-kind={kind} data-state={part.state}>
      <div className="tool-head">
        <span className="badge">{kind}</span>
        <strong>{name}</strong>
        <span className="state">{part.state}</span>
      </div>
      {part.input !== undefined && <pre className="input">{show(part.input)}</pre>}
      {part.state === "approval-requested" && <ApprovalButtons part={part} onAnswer={onAnswer} />}
      {part.state === "approval-responded" && (
        <div className="note">{part.approval.approved ? "approved" : "denied"}</div>
      )}
      {waitingForClient && <ClientToolPrompt part={part} onOutput={onOutput} />}
      {part.state === "output-available" && (
        <pre className="output" data-testid="tool-output">{show(part.output)}</pre>
      )}
      {part.state === "output-error" && <pre className="output error" data-testid="tool-error">{part.errorText}</pre>}
      {part.state === "output-denied" && (
        <div className="note denied" data-testid="tool-denied">
          denied{part.approval && part.approval.reason ? `: ${part.approval.reason}` : ""}
        </div>
      )}
    </div>
  );
}

function Message({ message, ready, onAnswer, onOutput }) {
  return (
    <div className={`message ${message.role}`} data-testid={`message-${message.role}`}>
      {message.parts.map((part, index) => {
        if (part.type === "text") return <div key={index} className="text" data-testid="text">{part.text}</div>;
        if (part.type === "reasoning") return <div key={index} className="reasoning">{part.text}</div>;
        if (part.type === "dynamic-tool" || part.type.startsWith("tool-"))
          return <ToolCard key={part.toolCallId} part={part} ready={ready} onAnswer={onAnswer} onOutput={onOutput} />;
        return null;
      })}
    </div>
  );
}

function App({ suggestion }) {
  const [input, setInput] = useState(suggestion);
  const { messages, sendMessage, status, error, stop, addToolApprovalResponse, addToolOutput } = useChat({
    transport: new DefaultChatTransport({ api: "/api/chat" }),
    sendAutomaticallyWhen: answered,
  });
  const ready = status === "ready" || status === "error";
  return (
    <main>
      <div className="transcript" data-testid="transcript">
        {messages.map((message) => (
          <Message key={message.id} message={message} ready={ready}
                   onAnswer={addToolApprovalResponse} onOutput={addToolOutput} />
        ))}
        {error && <div className="error" data-testid="chat-error">{error.message}</div>}
      </div>
      <form
        className="composer"
        onSubmit={(event) => {
          event.preventDefault();
          if (!input.trim()) return;
          sendMessage({ text: input });
          setInput("");
        }}
      >
        <textarea data-testid="prompt" value={input} onChange={(e) => setInput(e.target.value)} rows={3}
                  placeholder="Ask the agent" />
        <div className="actions">
          <span className="status" data-testid="status">{status}</span>
          {status === "streaming" || status === "submitted" ? (
            <button type="button" onClick={() => stop()}>Stop</button>
          ) : (
            <button type="submit" data-testid="send">Send</button>
          )}
        </div>
      </form>
    </main>
  );
}

const root = document.getElementById("root");
createRoot(root).render(<App suggestion={root.dataset.suggestion || ""} />);
