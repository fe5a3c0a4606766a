import Infrastructure

/// `GET /inbox/sw.js`: the web inbox's service worker (docs/interfaces.md#web-push). A push
/// carries the decrypted message (`notification_id`, `title`, `body`, `kind`, `tag`, and
/// `image_url` in the photo's follow-up). The follow-up shows the same notification again,
/// replaced in place by its `tag`, with the photo and without a second sound; a click
/// opens the inbox.
enum ServiceWorkerScript {
  static let pattern = "/inbox/sw.js"

  static func register(in router: inout HTTPRouter) {
    let script = HTTPResponse(
      status: 200,
      headers: [
        ("Content-Type", "text/javascript; charset=utf-8"), ("Cache-Control", "no-cache"),
      ],
      body: Array(javascript.utf8))
    router.get(pattern) { _ in .now(script) }
  }

  static let javascript = #"""
    "use strict";

    // What `showNotification` is given for one message; a follow-up replaces the alarm's
    // notification (same tag) quietly, now with the photo.
    function notificationFor(message) {
      const options = {
        body: message.body || "",
        tag: message.tag || message.notification_id,
        renotify: false,
        data: { notification_id: message.notification_id, kind: message.kind, url: "/inbox" },
      };
      if (message.image_url) {
        options.image = message.image_url;
        options.silent = true;
      }
      return { title: message.title || "Mowdeck", options: options };
    }

    function readMessage(data) {
      if (!data) return null;
      try { return data.json(); } catch (error) { return null; }
    }

    self.addEventListener("push", function (event) {
      const message = readMessage(event.data);
      if (!message || !message.notification_id) return;
      const shown = notificationFor(message);
      event.waitUntil(self.registration.showNotification(shown.title, shown.options));
    });

    self.addEventListener("notificationclick", function (event) {
      event.notification.close();
      event.waitUntil(self.clients.openWindow("/inbox"));
    });
    """#
}
