/// The page at `/`: the live picture, the microphones' level meters, the numbers of the progress
/// line and the device names. Self-contained (no outside script, style or font), so it works
/// offline; it reads `status.json` twice a second and carries the page's own query (a token) to
/// what it asks for, never writing it anywhere.
enum PreviewPage {
    static let html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>capture: live preview</title>
        <style>
        body { margin: 0; background: #111; color: #eee; font: 14px/1.4 sans-serif; }
        main { max-width: 960px; margin: 0 auto; padding: 12px; }
        #live { display: block; width: 100%; height: auto; background: #000; min-height: 120px; }
        table { border-collapse: collapse; margin-top: 8px; }
        td { padding: 2px 12px 2px 0; }
        .meter { width: 240px; height: 10px; background: #333; margin: 3px 0; }
        .meter div { height: 100%; width: 0; background: #3c3; }
        #state { color: #9c9; }
        </style>
        </head>
        <body>
        <main>
        <img id="live" alt="live picture">
        <table>
        <tr><td>State</td><td id="state">starting</td></tr>
        <tr><td>Devices</td><td id="devices"></td></tr>
        <tr><td>Duration</td><td id="elapsed"></td></tr>
        <tr><td>Frames written</td><td id="frames"></td></tr>
        <tr><td>Frames dropped</td><td id="dropped"></td></tr>
        <tr><td>File size</td><td id="bytes"></td></tr>
        <tr><td>Levels</td><td id="levels"></td></tr>
        </table>
        </main>
        <script>
        "use strict";
        const query = window.location.search;
        document.getElementById("live").src = "stream" + query;
        function show(id, text) { document.getElementById(id).textContent = text; }
        function size(bytes) {
          if (bytes >= 1e9) return (bytes / 1e9).toFixed(2) + " GB";
          if (bytes >= 1e6) return (bytes / 1e6).toFixed(1) + " MB";
          return (bytes / 1e3).toFixed(0) + " kB";
        }
        function meters(levels) {
          const box = document.getElementById("levels");
          box.textContent = "";
          for (const level of levels) {
            for (const channel of (level ? level.channels : [])) {
              const meter = document.createElement("div");
              meter.className = "meter";
              const bar = document.createElement("div");
              const peak = channel.peak === null ? -90 : channel.peak;
              bar.style.width = Math.max(0, Math.min(100, (peak + 60) * 100 / 60)) + "%";
              meter.appendChild(bar);
              box.appendChild(meter);
            }
          }
          if (!box.firstChild) box.textContent = "no microphone";
        }
        async function refresh() {
          try {
            const reply = await fetch("status.json" + query, { cache: "no-store" });
            const status = await reply.json();
            show("state", status.state);
            show("devices", status.devices.join(", "));
            show("elapsed", status.elapsed.toFixed(1) + " s");
            show("frames", status.frames + " (" + status.fps.toFixed(1) + " fps)");
            show("dropped", status.dropped);
            show("bytes", size(status.bytes));
            meters(status.levels);
          } catch (error) {
            show("state", "not reachable");
          }
        }
        refresh();
        setInterval(refresh, 500);
        </script>
        </body>
        </html>

        """
}
