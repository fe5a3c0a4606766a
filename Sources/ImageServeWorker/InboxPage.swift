import Events
import Infrastructure

/// `GET /inbox` and its script: the web inbox, plain HTML and JavaScript with no build
/// step, embedded so the binary needs no files beside it. A person pastes a session token
/// (or opens `/inbox#token=...`); the page lists the items and shows each photo under its
/// item. Photos are fetched with the bearer header and shown through blob URLs, since an
/// `<img src>` cannot send one.
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
      body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 42rem; padding: 1rem; }
      form { display: flex; gap: .5rem; margin-bottom: 1rem; }
      input { flex: 1; font: inherit; padding: .4rem; }
      ol { list-style: none; padding: 0; }
      li.item { border-bottom: 1px solid #ddd; padding: .75rem 0; }
      li.item h2 { font-size: 1.1rem; margin: 0 0 .25rem; }
      li.item p { margin: .2rem 0; }
      .meta, .photo-status, #status { color: #666; font-size: .9rem; }
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

  static let javascript = #"""
    "use strict";
    (function () {
      const api = "/api/v1/notifications/inbox";
      const list = document.getElementById("items");
      const status = document.getElementById("status");
      const more = document.getElementById("more");
      let token = "";
      let next = null;

      function say(text) { status.textContent = text; }

      function element(tag, className, text) {
        const node = document.createElement(tag);
        if (className) node.className = className;
        if (text !== undefined) node.textContent = text;
        return node;
      }

      async function get(url) {
        const response = await fetch(url, { headers: { Authorization: "Bearer " + token } });
        if (response.status === 401) throw new Error("This session is not valid. Paste a new token.");
        return response;
      }

      async function showPhoto(item, node) {
        const note = element("p", "photo-status", "Loading photo…");
        node.appendChild(note);
        try {
          const response = await get(api + "/" + item.item_id + "/image");
          if (!response.ok) {
            note.textContent = response.status === 404 ? "Photo not ready yet." : "Photo no longer available.";
            return;
          }
          const image = element("img", "photo");
          image.alt = "Photo from " + (item.mower_name || item.mower_id);
          image.addEventListener("load", function () {
            image.dataset.loaded = "true";
            image.dataset.width = String(image.naturalWidth);
            note.remove();
          });
          image.addEventListener("error", function () { note.textContent = "The photo could not be shown."; });
          image.src = URL.createObjectURL(await response.blob());
          node.appendChild(image);
        } catch (error) {
          note.textContent = error.message;
        }
      }

      function render(item) {
        const node = element("li", "item");
        node.dataset.itemId = item.item_id;
        node.appendChild(element("h2", "title", item.title));
        node.appendChild(element("p", "body", item.body));
        const when = new Date(item.occurred_at).toLocaleString();
        node.appendChild(element("p", "meta", (item.mower_name || item.mower_id) + " · " + when));
        if (item.has_image) {
          showPhoto(item, node);
        } else if (item.photo === "pending") {
          node.appendChild(element("p", "photo-status", "Photo coming…"));
        } else if (item.photo === "gone") {
          node.appendChild(element("p", "photo-status", "Photo no longer available."));
        }
        list.appendChild(node);
      }

      async function load(before) {
        say("Loading…");
        try {
          const response = await get(api + (before ? "?before=" + before : ""));
          if (!response.ok) throw new Error("The inbox could not be loaded (" + response.status + ").");
          const page = await response.json();
          page.items.forEach(render);
          next = page.next_before;
          more.hidden = !next;
          say(list.children.length === 0 ? "No notifications." : "");
        } catch (error) {
          say(error.message);
        }
      }

      // The user's devices of every platform, each with a button that removes it.
      const devices = document.getElementById("devices");
      const devicesSection = document.getElementById("devices-section");
      const platformNames = { apns: "iPhone or iPad", webpush: "Browser", fcm: "Android", ntfy: "ntfy" };

      function renderDevice(device) {
        const node = element("li", "device");
        node.dataset.deviceId = device.device_id;
        node.dataset.platform = device.platform;
        const name = (platformNames[device.platform] || device.platform) + " · " + device.address;
        node.appendChild(element("span", "name", device.active ? name : name + " (switched off)"));
        const remove = element("button", "remove", "Remove");
        remove.type = "button";
        remove.addEventListener("click", async function () {
          remove.disabled = true;
          try {
            const response = await fetch("/api/v1/notifications/devices/" + device.device_id,
              { method: "DELETE", headers: { Authorization: "Bearer " + token } });
            // 404: already gone (removed from another page).
            if (response.status !== 204 && response.status !== 404) {
              throw new Error("The device could not be removed (" + response.status + ").");
            }
            node.remove();
            devicesSection.hidden = devices.children.length === 0;
            say("The device was removed.");
          } catch (error) {
            remove.disabled = false;
            say(error.message);
          }
        });
        node.appendChild(remove);
        devices.appendChild(node);
      }

      async function loadDevices() {
        try {
          const response = await get("/api/v1/notifications/devices");
          if (!response.ok) return;
          devices.replaceChildren();
          (await response.json()).devices.forEach(renderDevice);
          devicesSection.hidden = devices.children.length === 0;
        } catch (error) {
          // The inbox works without the list.
        }
      }

      // Web Push: offered when this server has a VAPID key and the browser can subscribe.
      const subscribe = document.getElementById("subscribe");
      let serverKey = null;

      function keyBytes(base64url) {
        const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
        return Uint8Array.from(text, function (c) { return c.charCodeAt(0); });
      }

      async function offerPush() {
        if (!("serviceWorker" in navigator) || !("PushManager" in window)) return;
        try {
          const response = await fetch("/api/v1/notifications/webpush/key");
          if (!response.ok) return;
          serverKey = (await response.json()).public_key;
          subscribe.hidden = false;
        } catch (error) {
          // No Web Push offered: the inbox works as before.
        }
      }

      // A push subscription needs an active service worker; a first registration is still
      // installing when `register` resolves.
      function activated(registration) {
        const worker = registration.installing || registration.waiting;
        if (registration.active || !worker) return Promise.resolve(registration);
        return new Promise(function (resolve, reject) {
          worker.addEventListener("statechange", function () {
            if (worker.state === "activated") resolve(registration);
            if (worker.state === "redundant") reject(new Error("The notification helper could not be installed."));
          });
        });
      }

      subscribe.addEventListener("click", async function () {
        try {
          if ((await Notification.requestPermission()) !== "granted") {
            say("Notifications are blocked for this site in the browser's settings.");
            return;
          }
          const registration = await activated(await navigator.serviceWorker.register("/inbox/sw.js"));
          const subscription = await registration.pushManager.subscribe({
            userVisibleOnly: true, applicationServerKey: keyBytes(serverKey),
          });
          const body = Object.assign({ platform: "webpush" }, subscription.toJSON());
          const response = await fetch("/api/v1/notifications/devices", {
            method: "POST",
            headers: { Authorization: "Bearer " + token, "Content-Type": "application/json" },
            body: JSON.stringify(body),
          });
          if (!response.ok) throw new Error("This browser could not be registered (" + response.status + ").");
          subscribe.hidden = true;
          say("This browser will be notified.");
          loadDevices();
        } catch (error) {
          say(error.message);
        }
      });

      function start(value) {
        token = value.trim();
        list.replaceChildren();
        if (token) {
          load(null);
          offerPush();
          loadDevices();
        }
      }

      document.getElementById("session").addEventListener("submit", function (event) {
        event.preventDefault();
        start(document.getElementById("token").value);
      });
      more.addEventListener("click", function () { if (next) load(next); });

      // `/inbox#token=...` signs in at once; the fragment never reaches a server log.
      const match = /^#token=([0-9a-fA-F]{64})$/.exec(location.hash);
      if (match) {
        history.replaceState(null, "", location.pathname);
        start(match[1]);
      }
    })();
    """#
}
