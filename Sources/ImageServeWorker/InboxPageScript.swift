extension InboxPage {
  /// The inbox page's script (docs/interfaces.md#web-inbox-page).
  ///
  /// - The session token is kept in `sessionStorage`: a reload of the tab keeps it, another
  ///   tab does not get it, and "Sign out" (or a 401) removes it.
  /// - The first page of the inbox is asked for again every `pollMs` while the tab is
  ///   visible; new items go on top (the scroll position kept), and an item whose photo
  ///   state changed is redrawn, so "photo coming" turns into the photo.
  /// - Each failure has its own message in `#status`, whose `data-state` names it for tests:
  ///   `unauthorized` (401: polling stops), `rate-limited` (429: waits `Retry-After`),
  ///   `unavailable` (503) and `offline` (no answer), both retried with a growing delay.
  /// - Photos are fetched with the bearer header and shown through blob URLs, since an
  ///   `<img src>` cannot send one.
  static let javascript = #"""
    "use strict";
    (function () {
      const api = "/api/v1/notifications/inbox";
      const storageKey = "mowdeck.inbox.session";
      const pollMs = 5000;
      const maxRetryMs = 60000;
      const list = document.getElementById("items");
      const status = document.getElementById("status");
      const more = document.getElementById("more");
      const form = document.getElementById("session");
      const signedIn = document.getElementById("signed-in");
      let token = "";
      let next = null;
      // Each sign-in starts a generation; answers to an older one are dropped.
      let generation = 0;
      let timer = null;
      let countdown = null;
      let failures = 0;

      function say(text, state) {
        status.textContent = text;
        status.dataset.state = state || "ok";
      }

      function element(tag, className, text) {
        const node = document.createElement(tag);
        if (className) node.className = className;
        if (text !== undefined) node.textContent = text;
        return node;
      }

      // A 401 from any route: the session is over for this tab.
      class SessionEnded extends Error {}

      async function ask(url, method) {
        const response = await fetch(url,
          { method: method || "GET", headers: { Authorization: "Bearer " + token } });
        if (response.status === 401) throw new SessionEnded();
        return response;
      }

      // MARK: items

      function photoArea(node) {
        let area = node.querySelector(".photo-area");
        if (!area) {
          area = element("div", "photo-area");
          node.appendChild(area);
        }
        return area;
      }

      // Draws the photo part of `node` for the item's `photo` state, once per state.
      function showPhotoState(item, node) {
        const state = item.has_image ? "available" : item.photo;
        if (node.dataset.photo === state) return;
        node.dataset.photo = state;
        const area = photoArea(node);
        area.replaceChildren();
        if (state === "available") {
          showPhoto(item, node, area);
        } else if (state === "pending") {
          area.appendChild(element("p", "photo-status photo-coming", "Photo coming…"));
        } else if (state === "gone") {
          area.appendChild(element("p", "photo-status photo-none",
            "No photo: the camera did not deliver it, or it has expired."));
        }
      }

      async function showPhoto(item, node, area) {
        const note = element("p", "photo-status", "Loading photo…");
        area.appendChild(note);
        try {
          const response = await ask(api + "/" + item.item_id + "/image");
          if (!response.ok) {
            // 404: not there after all; the next poll draws the state again.
            if (response.status === 404) delete node.dataset.photo;
            note.textContent = response.status === 404 ? "Photo coming…" : "No photo: it is no longer available.";
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
          area.appendChild(image);
        } catch (error) {
          if (error instanceof SessionEnded) sessionEnded();
          else note.textContent = "The photo could not be loaded.";
        }
      }

      function render(item) {
        const node = element("li", "item");
        node.dataset.itemId = item.item_id;
        node.appendChild(element("h2", "title", item.title));
        node.appendChild(element("p", "body", item.body));
        const when = new Date(item.occurred_at).toLocaleString();
        node.appendChild(element("p", "meta", (item.mower_name || item.mower_id) + " · " + when));
        showPhotoState(item, node);
        return node;
      }

      function existing(item) {
        return list.querySelector('li.item[data-item-id="' + item.item_id + '"]');
      }

      // Merges a first page (newest first): known items get their photo state, new ones go
      // above the newest known item. The view stays on what the reader was looking at.
      function mergeNewest(items) {
        const before = document.documentElement.scrollHeight;
        let anchor = list.firstElementChild;
        items.forEach(function (item) {
          const node = existing(item);
          if (node) {
            showPhotoState(item, node);
            anchor = node.nextElementSibling;
          } else {
            list.insertBefore(render(item), anchor);
          }
        });
        if (window.scrollY > 0) window.scrollBy(0, document.documentElement.scrollHeight - before);
      }

      // MARK: polling

      function stopPolling() {
        clearTimeout(timer);
        clearInterval(countdown);
        timer = null;
        countdown = null;
      }

      function schedule(ms) {
        stopPolling();
        timer = setTimeout(refresh, ms);
      }

      // 5 s, 10 s, 20 s … at most a minute, while the server keeps failing.
      function backoff() {
        failures += 1;
        return Math.min(maxRetryMs, pollMs * Math.pow(2, failures - 1));
      }

      function retryAfter(response) {
        const seconds = Number(response.headers.get("Retry-After"));
        return Number.isInteger(seconds) && seconds > 0 ? seconds * 1000 : backoff();
      }

      function rateLimited(ms) {
        let left = Math.ceil(ms / 1000);
        const show = function () { say("Too many requests; retrying in " + left + " s", "rate-limited"); };
        show();
        schedule(ms);
        countdown = setInterval(function () {
          left = Math.max(1, left - 1);
          show();
        }, 1000);
      }

      function sessionEnded() {
        generation += 1;
        stopPolling();
        sessionStorage.removeItem(storageKey);
        token = "";
        showSignedIn(false);
        say("Your session has ended. Sign in again.", "unauthorized");
      }

      async function refresh() {
        const mine = generation;
        if (!token) return;
        if (document.visibilityState === "hidden") return; // visibilitychange resumes
        let response;
        try {
          response = await ask(api);
        } catch (error) {
          if (mine !== generation) return;
          if (error instanceof SessionEnded) return sessionEnded();
          say("Cannot reach the server; retrying…", "offline");
          return schedule(backoff());
        }
        if (mine !== generation) return;
        if (response.status === 429) return rateLimited(retryAfter(response));
        if (response.status === 503) {
          say("The server is busy or restarting; retrying…", "unavailable");
          return schedule(backoff());
        }
        if (!response.ok) {
          say("The inbox could not be loaded (" + response.status + "); retrying…", "error");
          return schedule(backoff());
        }
        const page = await response.json();
        if (mine !== generation) return;
        failures = 0;
        mergeNewest(page.items);
        if (list.children.length === page.items.length) {
          next = page.next_before;
          more.hidden = !next;
        }
        say(list.children.length === 0 ? "No notifications." : "");
        schedule(pollMs);
      }

      async function loadOlder() {
        const mine = generation;
        try {
          const response = await ask(api + "?before=" + next);
          if (!response.ok) throw new Error("Older items could not be loaded (" + response.status + ").");
          const page = await response.json();
          if (mine !== generation) return;
          page.items.forEach(function (item) { if (!existing(item)) list.appendChild(render(item)); });
          next = page.next_before;
          more.hidden = !next;
        } catch (error) {
          if (error instanceof SessionEnded) sessionEnded();
          else say(error.message, "error");
        }
      }

      document.addEventListener("visibilitychange", function () {
        if (document.visibilityState === "visible" && token && !countdown) refresh();
      });

      // MARK: devices

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
            const response = await ask("/api/v1/notifications/devices/" + device.device_id, "DELETE");
            // 404: already gone (removed from another page).
            if (response.status !== 204 && response.status !== 404) {
              throw new Error("The device could not be removed (" + response.status + ").");
            }
            node.remove();
            devicesSection.hidden = devices.children.length === 0;
            say("The device was removed.");
          } catch (error) {
            remove.disabled = false;
            if (error instanceof SessionEnded) sessionEnded();
            else say(error.message, "error");
          }
        });
        node.appendChild(remove);
        devices.appendChild(node);
      }

      async function loadDevices() {
        try {
          const response = await ask("/api/v1/notifications/devices");
          if (!response.ok) return;
          devices.replaceChildren();
          (await response.json()).devices.forEach(renderDevice);
          devicesSection.hidden = devices.children.length === 0;
        } catch (error) {
          // The inbox works without the list; a 401 shows through the inbox's own poll.
        }
      }

      // MARK: Web Push

      // Offered when this server has a VAPID key and the browser can subscribe.
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
            say("Notifications are blocked for this site in the browser's settings.", "error");
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
          say(error.message, "error");
        }
      });

      // MARK: session

      function showSignedIn(yes) {
        form.hidden = yes;
        signedIn.hidden = !yes;
        if (!yes) {
          list.replaceChildren();
          devices.replaceChildren();
          devicesSection.hidden = true;
          subscribe.hidden = true;
          more.hidden = true;
        }
      }

      function start(value) {
        generation += 1;
        stopPolling();
        failures = 0;
        token = value.trim();
        list.replaceChildren();
        if (!token) return;
        sessionStorage.setItem(storageKey, token);
        showSignedIn(true);
        say("Loading…");
        refresh();
        offerPush();
        loadDevices();
      }

      form.addEventListener("submit", function (event) {
        event.preventDefault();
        start(document.getElementById("token").value);
        document.getElementById("token").value = "";
      });
      document.getElementById("signout").addEventListener("click", function () {
        generation += 1;
        stopPolling();
        sessionStorage.removeItem(storageKey);
        token = "";
        showSignedIn(false);
        say("Signed out.");
      });
      more.addEventListener("click", function () { if (next) loadOlder(); });

      // `/inbox#token=...` signs in at once; the fragment never reaches a server log.
      const match = /^#token=([0-9a-fA-F]{64})$/.exec(location.hash);
      if (match) {
        history.replaceState(null, "", location.pathname);
        start(match[1]);
      } else if (sessionStorage.getItem(storageKey)) {
        start(sessionStorage.getItem(storageKey));
      }
    })();
    """#
}
