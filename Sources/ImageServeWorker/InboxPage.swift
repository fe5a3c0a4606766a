import Events
import Infrastructure

/// `GET /inbox` and its script (`InboxPage.javascript`, InboxPageScript.swift): the web
/// inbox, plain HTML and JavaScript with no build step, embedded so the binary needs no
/// files beside it. A person pastes a session token (or opens `/inbox#token=...`); the page
/// keeps it for the tab, lists the items, refreshes itself and shows each photo under its
/// item.
enum InboxPage {
  static let pagePattern = "/inbox"
  static let scriptPattern = "/inbox/inbox.js"

  static func register(in router: inout HTTPRouter) {
    let page = HTTPResponse(
      status: 200,
      headers: [
        ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache"),
        // Script only from this server, images only from it or the blob URLs it makes.
        (
          "Content-Security-Policy",
          "default-src 'none'; script-src 'self'; worker-src 'self'; connect-src 'self'; img-src 'self' blob:; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("Referrer-Policy", "no-referrer"),
      ],
      body: Array(html.utf8))
    let script = HTTPResponse(
      status: 200,
      headers: [
        ("Content-Type", "text/javascript; charset=utf-8"), ("Cache-Control", "no-cache"),
      ],
      body: Array(javascript.utf8))
    router.get(pagePattern) { _ in .now(page) }
    router.get(scriptPattern) { _ in .now(script) }
  }

  static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Mowdeck inbox</title>
    <style>
      [hidden] { display: none !important; }
      body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 42rem; padding: 1rem; }
      form { display: flex; gap: .5rem; margin-bottom: 1rem; }
      input { flex: 1; font: inherit; padding: .4rem; }
      ol { list-style: none; padding: 0; }
      li.item { border-bottom: 1px solid #ddd; padding: .75rem 0; }
      li.item h2 { font-size: 1.1rem; margin: 0 0 .25rem; }
      li.item p { margin: .2rem 0; }
      .meta, .photo-status, #status { color: #666; font-size: .9rem; }
      #status[data-state="unauthorized"], #status[data-state="rate-limited"],
      #status[data-state="unavailable"], #status[data-state="offline"], #status[data-state="error"] {
        background: #fff4e5; border: 1px solid #f0b35a; border-radius: 4px; color: #6b3d00; padding: .5rem;
      }
      #signed-in { display: flex; justify-content: space-between; align-items: center; }
      .photo-status.photo-coming {
        background: #f2f2f2; border: 1px dashed #bbb; border-radius: 4px; padding: 1.5rem; text-align: center;
      }
      img.photo { display: block; max-width: 100%; margin-top: .5rem; border-radius: 4px; }
      #devices { list-style: none; padding: 0; }
      li.device { display: flex; justify-content: space-between; gap: .5rem; padding: .25rem 0; }
    </style>
    </head>
    <body>
    <h1>Inbox</h1>
    <form id="session">
      <input id="token" type="password" autocomplete="off" placeholder="Session token" aria-label="Session token">
      <button type="submit">Show</button>
    </form>
    <p id="signed-in" hidden><span>Signed in for this tab.</span> <button id="signout" type="button">Sign out</button></p>
    <p id="push"><button id="subscribe" type="button" hidden>Notify me on this browser</button></p>
    <section id="devices-section" hidden>
      <h2>Devices notified</h2>
      <ul id="devices"></ul>
    </section>
    <p id="status" role="status"></p>
    <ol id="items"></ol>
    <button id="more" type="button" hidden>Older</button>
    <script src="/inbox/inbox.js"></script>
    </body>
    </html>
    """#
}
