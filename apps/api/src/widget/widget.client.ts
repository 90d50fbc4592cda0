// Browser code, type-checked against the DOM library (the references below; lint forbids DOM
// globals everywhere else). widget.script.ts serves this function's compiled text as /widget.js,
// so its body must stay self-contained: no value imports, no references to any value outside its
// body, plain ES2020 that every current browser runs. Types are erased, so the types below and the
// type-only import are free to use.
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import type { ChatbotCitation, ChatbotEvent } from '@docqa/chatbot';

/** Attributes of `el`: `text` and `className` set those properties; `true` adds an empty attribute, `false`/null/undefined none. */
interface ElementAttrs {
  text?: string;
  className?: string;
  [attribute: string]: string | boolean | null | undefined;
}

/** The JSON `data:` of one answer-stream event of that `event:` name (ChatbotEvent's `type`). */
type EventData<T extends ChatbotEvent['type']> = Extract<ChatbotEvent, { type: T }>;

/** An `error` event, or another surface's error body (`{ message }`) should one arrive. */
type ErrorData = Partial<EventData<'error'>> & { message?: string };

/** A turn of `past_messages` (chatbot API). */
interface PastMessage {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * The embeddable chat widget. Reads its settings from the `<script>` tag that loaded it
 * (`data-key`, optional `data-title`, `data-open`, `data-api`), renders a launcher and a chat
 * panel inside a Shadow DOM (styles do not leak in or out), streams answers from
 * `POST /api/v1/chatbot/ask_question` (SSE), shows citations as links and offers a support form
 * (`POST /api/v1/support_emails`). Accessible: labelled controls, answers in an aria-live log,
 * Enter sends, Shift+Enter adds a line, Escape closes.
 */
export function docqaWidget(win: Window, doc: Document, script: HTMLScriptElement | null): void {
  if (!script || script.dataset.docqaWidgetLoaded) return;
  script.dataset.docqaWidgetLoaded = 'true';
  const key = (script.dataset.key || '').trim();
  const title = script.dataset.title || 'Ask our documents';
  let apiBase = script.dataset.api || '';
  if (!apiBase) {
    try {
      apiBase = new URL(script.src, doc.baseURI).origin;
    } catch {
      apiBase = win.location.origin;
    }
  }
  apiBase = apiBase.replace(/\/+$/, '');
  const MAX_SUPPORT = 2000;
  const HISTORY = 10;

  const CSS = `
:host { all: initial; }
* { box-sizing: border-box; }
.root { position: fixed; right: 20px; bottom: 20px; z-index: 2147483000; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; }
button { font: inherit; cursor: pointer; }
.launcher { border: 0; border-radius: 24px; padding: 12px 18px; background: #1f6feb; color: #fff; box-shadow: 0 4px 14px rgba(0,0,0,.25); }
.launcher:focus-visible, button:focus-visible, textarea:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid #f0b400; outline-offset: 2px; }
.panel { display: flex; flex-direction: column; width: min(380px, calc(100vw - 40px)); height: min(560px, calc(100vh - 40px)); background: #fff; border: 1px solid #d0d7de; border-radius: 12px; box-shadow: 0 8px 30px rgba(0,0,0,.25); overflow: hidden; }
.panel[hidden] { display: none; }
.head { display: flex; align-items: center; gap: 8px; padding: 10px 12px; background: #1f6feb; color: #fff; }
.head h2 { flex: 1; margin: 0; font-size: 15px; font-weight: 600; }
.head button { border: 0; background: transparent; color: #fff; padding: 4px 8px; border-radius: 6px; }
.head button:hover { background: rgba(255,255,255,.15); }
.log { flex: 1; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 10px; }
.msg { max-width: 92%; padding: 8px 10px; border-radius: 10px; white-space: normal; overflow-wrap: anywhere; }
.msg.user { align-self: flex-end; background: #ddf4ff; white-space: pre-wrap; }
.msg.bot { align-self: flex-start; background: #f6f8fa; }
.msg.bot.streaming .text { white-space: pre-wrap; }
.msg.error { align-self: stretch; background: #ffebe9; color: #82071e; }
.msg p { margin: 0 0 6px; } .msg p:last-child { margin-bottom: 0; }
.msg pre { overflow-x: auto; background: #eaeef2; padding: 6px; border-radius: 6px; }
.citations { margin: 8px 0 0; padding-left: 20px; font-size: 12px; }
.citations a, .msg a { color: #0550ae; }
form { display: flex; flex-direction: column; gap: 6px; padding: 10px 12px; border-top: 1px solid #d0d7de; }
label { font-size: 12px; font-weight: 600; }
textarea, input { width: 100%; font: inherit; padding: 8px; border: 1px solid #8c959f; border-radius: 8px; resize: vertical; }
.row { display: flex; gap: 8px; justify-content: space-between; align-items: center; }
.send { border: 0; border-radius: 8px; padding: 8px 14px; background: #1f6feb; color: #fff; }
.send[disabled] { opacity: .6; cursor: default; }
.link { border: 0; background: none; color: #0550ae; padding: 0; text-decoration: underline; }
.status { font-size: 12px; min-height: 1em; }
.support[hidden], .ask[hidden] { display: none; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

  const host = doc.createElement('div');
  host.className = 'docqa-widget-host';
  const shadow = host.attachShadow({ mode: 'open' });
  const uid = 'docqa-' + Math.random().toString(36).slice(2, 8);

  function el<K extends keyof HTMLElementTagNameMap>(
    tag: K,
    attrs?: ElementAttrs,
    children?: Node[],
  ): HTMLElementTagNameMap[K] {
    const node = doc.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === false || v === null || v === undefined) continue;
      if (k === 'text') node.textContent = v as string;
      else if (k === 'className') node.className = v as string;
      else node.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children || []) node.appendChild(c);
    return node;
  }

  const style = el('style', { text: CSS });
  const launcher = el('button', {
    type: 'button',
    className: 'launcher',
    'aria-expanded': 'false',
    'aria-controls': uid + '-panel',
    text: title,
  });
  const closeBtn = el('button', { type: 'button', 'aria-label': 'Close chat', text: '✕' });
  const supportBtn = el('button', { type: 'button', className: 'support-toggle', text: 'Contact support' });
  const log = el('div', {
    className: 'log',
    role: 'log',
    'aria-live': 'polite',
    'aria-relevant': 'additions text',
    'aria-label': 'Conversation',
  });
  const question = el('textarea', {
    id: uid + '-q',
    name: 'question',
    rows: '2',
    maxlength: '4000',
    placeholder: 'Type your question…',
    autocomplete: 'off',
  });
  const sendBtn = el('button', { type: 'submit', className: 'send', text: 'Send' });
  const askForm = el('form', { className: 'ask', 'aria-label': 'Ask a question' }, [
    el('label', { for: uid + '-q', text: 'Your question' }),
    question,
    el('div', { className: 'row' }, [
      el('span', {
        className: 'sr',
        id: uid + '-hint',
        text: 'Press Enter to send, Shift+Enter for a new line.',
      }),
      sendBtn,
    ]),
  ]);
  question.setAttribute('aria-describedby', uid + '-hint');

  const supportMsg = el('textarea', {
    id: uid + '-sm',
    name: 'message',
    rows: '4',
    maxlength: String(MAX_SUPPORT),
  });
  const supportEmail = el('input', {
    id: uid + '-se',
    name: 'sender_email',
    type: 'email',
    autocomplete: 'email',
  });
  const supportStatus = el('div', { className: 'status', role: 'status', 'aria-live': 'polite' });
  const supportSend = el('button', { type: 'submit', className: 'send', text: 'Send to support' });
  const supportCancel = el('button', { type: 'button', className: 'link', text: 'Back to chat' });
  const supportForm = el('form', { className: 'support', hidden: true, 'aria-label': 'Contact support' }, [
    el('label', { for: uid + '-sm', text: 'Message to support (at most 2000 characters)' }),
    supportMsg,
    el('label', { for: uid + '-se', text: 'Your e-mail (optional, so we can reply)' }),
    supportEmail,
    supportStatus,
    el('div', { className: 'row' }, [supportCancel, supportSend]),
  ]);

  const panel = el(
    'div',
    { className: 'panel', id: uid + '-panel', role: 'dialog', 'aria-label': title, hidden: true },
    [
      el('div', { className: 'head' }, [el('h2', { text: title }), supportBtn, closeBtn]),
      log,
      askForm,
      supportForm,
    ],
  );
  const root = el('div', { className: 'root' }, [panel, launcher]);
  shadow.appendChild(style);
  shadow.appendChild(root);

  const history: PastMessage[] = [];
  let busy = false;

  function open() {
    panel.hidden = false;
    launcher.hidden = true;
    launcher.setAttribute('aria-expanded', 'true');
    (supportForm.hidden ? question : supportMsg).focus();
  }
  function close() {
    panel.hidden = true;
    launcher.hidden = false;
    launcher.setAttribute('aria-expanded', 'false');
    launcher.focus();
  }
  function showSupport(show: boolean) {
    supportForm.hidden = !show;
    askForm.hidden = show;
    supportBtn.setAttribute('aria-pressed', show ? 'true' : 'false');
    (show ? supportMsg : question).focus();
  }
  function addMessage(kind: string, text: string) {
    const m = el('div', { className: 'msg ' + kind }, [el('div', { className: 'text', text: text || '' })]);
    log.appendChild(m);
    log.scrollTop = log.scrollHeight;
    return m;
  }
  function showError(bubble: HTMLElement, message: string) {
    bubble.className = 'msg error';
    bubble.setAttribute('role', 'alert');
    bubble.querySelector('.text')!.textContent = message;
  }
  function renderCitations(bubble: HTMLElement, citations: ChatbotCitation[] | undefined) {
    const old = bubble.querySelector('.citations');
    if (old) old.remove();
    if (!citations || !citations.length) return;
    const list = el('ol', { className: 'citations', 'aria-label': 'Sources' });
    for (const c of citations) {
      const label = c.fileName + (c.pageNumber ? ', page ' + c.pageNumber : '');
      const a = el('a', { href: c.source, target: '_blank', rel: 'noopener noreferrer', text: label });
      const li = el('li', {}, [a]);
      li.value = c.index;
      list.appendChild(li);
    }
    bubble.appendChild(list);
  }
  async function errorText(res: Response) {
    try {
      const body = await res.json();
      if (body && typeof body.error === 'string') return body.error;
    } catch {
      /* not JSON */
    }
    return 'The request failed (' + res.status + ').';
  }
  function headers() {
    return { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json' };
  }

  async function ask(text: string) {
    busy = true;
    sendBtn.disabled = true;
    addMessage('user', text);
    const bubble = addMessage('bot streaming', '');
    bubble.setAttribute('aria-busy', 'true');
    const textNode = bubble.querySelector('.text')!;
    let markdown = '';
    try {
      const res = await fetch(apiBase + '/api/v1/chatbot/ask_question', {
        method: 'POST',
        headers: Object.assign(headers(), { Accept: 'text/event-stream' }),
        body: JSON.stringify({
          question: text,
          past_messages: history.slice(-HISTORY),
          format: 'html',
          stream: true,
        }),
      });
      if (!res.ok || !res.body) {
        showError(bubble, await errorText(res));
        return;
      }
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      let finished = false;
      const handle = (event: string, data: string) => {
        let payload: unknown;
        try {
          payload = JSON.parse(data);
        } catch {
          return;
        }
        if (event === 'delta') {
          markdown += (payload as EventData<'delta'>).text;
          textNode.textContent = markdown;
          log.scrollTop = log.scrollHeight;
        } else if (event === 'citations') {
          renderCitations(bubble, (payload as EventData<'citations'>).citations);
        } else if (event === 'done') {
          finished = true;
          bubble.classList.remove('streaming');
          // Sanitised by the service (format html): no script or event handler survives.
          textNode.innerHTML = (payload as EventData<'done'>).answer;
          for (const a of textNode.querySelectorAll('a')) {
            a.setAttribute('target', '_blank');
            a.setAttribute('rel', 'noopener noreferrer');
          }
          renderCitations(bubble, (payload as EventData<'done'>).citations);
          history.push({ role: 'user', content: text }, { role: 'assistant', content: markdown });
        } else if (event === 'error') {
          finished = true;
          showError(
            bubble,
            (payload as ErrorData).error || (payload as ErrorData).message || 'The answer failed.',
          );
        }
      };
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
        let cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length) handle(event, data.join('\n'));
        }
      }
      if (!finished) showError(bubble, 'The answer was interrupted. Please try again.');
    } catch {
      showError(bubble, 'Could not reach the service. Please try again.');
    } finally {
      bubble.removeAttribute('aria-busy');
      busy = false;
      sendBtn.disabled = false;
    }
  }

  async function sendSupport() {
    const message = supportMsg.value.trim();
    if (!message) {
      supportStatus.textContent = 'Please write a message.';
      supportMsg.focus();
      return;
    }
    if (Array.from(message).length > MAX_SUPPORT) {
      supportStatus.textContent = 'The message is longer than ' + MAX_SUPPORT + ' characters.';
      return;
    }
    supportSend.disabled = true;
    supportStatus.textContent = 'Sending…';
    try {
      const body: { message: string; sender_email?: string } = { message };
      if (supportEmail.value.trim()) body.sender_email = supportEmail.value.trim();
      const res = await fetch(apiBase + '/api/v1/support_emails', {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify(body),
      });
      if (!res.ok) {
        supportStatus.textContent = await errorText(res);
        return;
      }
      const result = await res.json();
      supportStatus.textContent = result.message || 'Sent.';
      supportMsg.value = '';
    } catch {
      supportStatus.textContent = 'Could not reach the service. Please try again.';
    } finally {
      supportSend.disabled = false;
    }
  }

  launcher.addEventListener('click', open);
  closeBtn.addEventListener('click', close);
  supportBtn.addEventListener('click', () => showSupport(supportForm.hidden));
  supportCancel.addEventListener('click', () => showSupport(false));
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      close();
    }
  });
  question.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      askForm.requestSubmit();
    }
  });
  askForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = question.value.trim();
    if (!text || busy) return;
    question.value = '';
    void ask(text);
  });
  supportForm.addEventListener('submit', (e) => {
    e.preventDefault();
    void sendSupport();
  });

  if (!key || key.indexOf('cb_') !== 0) {
    addMessage('error', 'This chat widget has no valid data-key (a cb_ chatbot key).');
  }
  const mount = () => {
    doc.body.appendChild(host);
    if (script.dataset.open === 'true') open();
  };
  if (doc.body) mount();
  else doc.addEventListener('DOMContentLoaded', mount);
}
