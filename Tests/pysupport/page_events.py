"""Page-side JavaScript that hears the list page's events as they arrive, for tests and benchmarks."""
from __future__ import annotations


def tap_page_events(observer: str, types: tuple[str, ...]) -> str:
    """JavaScript, run before the page's scripts, that calls the page-defined function `observer(type,
    data)` with each event of `types` as the page receives it: from the browser's one event connection
    (a SharedWorker, through a MessagePort), or, without one, from an EventSource of the page's own."""
    names = ", ".join(f"'{name}'" for name in types)
    return f"""
  const portMessage = Object.getOwnPropertyDescriptor(MessagePort.prototype, 'onmessage');
  Object.defineProperty(MessagePort.prototype, 'onmessage', {{
    configurable: true, enumerable: true,
    get() {{ return portMessage.get.call(this); }},
    set(handler) {{
      portMessage.set.call(this, typeof handler !== 'function' ? handler : function (e) {{
        const m = e.data;
        try {{
          if (m && m.kind === 'event') {observer}(m.type, typeof m.data === 'string' ? JSON.parse(m.data) : m.data);
        }} catch (_) {{ /* not an event the tap reads */ }}
        return handler.call(this, e);
      }});
    }},
  }});
  const NativeEventSource = window.EventSource;
  window.EventSource = class extends NativeEventSource {{
    constructor(url, options) {{
      super(url, options);
      for (const type of [{names}]) {{
        this.addEventListener(type, (e) => {{ try {{ {observer}(type, JSON.parse(e.data)); }} catch (_) {{ /* not JSON */ }} }});
      }}
    }}
  }};
"""
