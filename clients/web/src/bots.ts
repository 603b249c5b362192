// Bots for the seats the creator gave to them, run by the creator's page (a hot-seat game
// without server bots; they stop when the tab closes, so the form offers server bots first). One spectator
// stream per game tells whose decision the game waits for (a browser has only a few
// connections per server, so not one stream per bot); for each bot seat asked, the page reads
// that seat's view and sends one of the legal commands it lists, at random. No rule is known
// here: the choice is among what the referee offers. The command id comes from the view's
// version and expected_version is set, so a reloaded page or a stale view never plays twice.
import { api, backoff, resumable, sleep, submit } from "./api";
import { savedGame } from "./store";

const running = new Set<string>();
/** Milliseconds a bot waits before it plays (?botDelay=0 in tests), so people can follow. */
const delay = Number(new URLSearchParams(location.search).get("botDelay") ?? 400);

export function startBots(gameId: string): void {
  const game = savedGame(gameId);
  if (!game?.bots.length || running.has(gameId)) return;
  running.add(gameId);
  void drive(gameId, game.bots, game.tokens).finally(() => running.delete(gameId));
}

async function act(gameId: string, seat: number, token: string): Promise<void> {
  const { view } = await api.getView({ gameId, seatToken: token });
  if (!view || !view.legalCommands.length) return;
  await sleep(delay);
  const command = view.legalCommands[Math.floor(Math.random() * view.legalCommands.length)];
  try {
    await submit({
      gameId,
      seatToken: token,
      commandId: `bot-${seat}-${view.version}`,
      expectedVersion: view.version,
      command,
    });
  } catch {
    // A newer state is on its way (version conflict), the game ended, or the server stayed
    // away through every retry (the stream's next view asks again): nothing to do.
  }
}

async function drive(gameId: string, bots: number[], tokens: Record<number, string>): Promise<void> {
  // Any end of the stream before the game is over (a server restarting, a proxy's reset, a
  // clean early end) is followed by a new one, except a refusal of the request itself.
  for (let attempt = 0; ; attempt++) {
    try {
      const { view } = await api.getView({ gameId, spectator: true });
      if (!view || view.gameOver) return;
      const stream = api.streamGame({ gameId, spectator: true, afterSequence: view.version });
      for await (const message of stream) {
        attempt = 0;
        if (message.heartbeat) continue; // an idle stream's sign of life: nothing to act on
        const current = message.view;
        if (!current || current.gameOver) return;
        // Mid-batch views show passing states; decide at the end of a batch only.
        if (message.event && message.event.sequence !== message.event.batchEndSequence) continue;
        const asked = current.pendingSeats.filter((seat) => bots.includes(seat));
        await Promise.all(asked.map((seat) => act(gameId, seat, tokens[seat]).catch(() => {})));
      }
    } catch (error) {
      if (!resumable(error)) return;
    }
    await sleep(backoff(attempt));
  }
}
