// The cards of the four games drawn as inline SVG, made here (no third-party art, no emoji:
// every picture is a few paths). One look per game's card kinds:
//   Vampire Queen       number cards 1-13, the Vampire Queens (14), the Hunters (15, 20)
//   Sleeping Queens     numbers 1-10, King, Jester, Knight, Sleeping Potion, Wand, Dragon; the
//                       12 queens; the face-down queens' own back
//   Mau Mau Vampires    coloured cards with their symbol (the symbol names come from the view),
//                       Clocks, Werewolves
//   Dracula vs Van H.   4 colours x values 1-8 with the effect the value has when thrown away;
//                       the districts' tokens, the colour track and Dracula's HP
// Every SVG is one picture for assistive technology: role="img" and an aria-label with the
// card's words (the same words the server's labels use), so what is drawn can also be read.
// The words shown inside a picture are only repeated there for sighted players.
import type { DraculaVsVanHelsing_Card } from "./gen/referee/v1/dracula_vs_van_helsing_pb";
import type { MauMauVampires_Card } from "./gen/referee/v1/mau_mau_vampires_pb";

const NS = "http://www.w3.org/2000/svg";
const W = 60;
const H = 84;

/** Text made safe for SVG markup (symbol names come from the server's data file). */
function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function svgRoot(label: string, classes: string, width: number, height: number, markup: string): SVGSVGElement {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  svg.setAttribute("class", classes);
  svg.setAttribute("font-family", "system-ui, sans-serif");
  svg.innerHTML = markup; // static art, and text through esc()
  return svg;
}

/** What a card face shows. */
export interface Face {
  /** The card in the game's words: the aria-label (and the hand's text chips). */
  label: string;
  /** The index in the top-left corner ("7", "Q", "H15"); "" for none. */
  corner: string;
  /** Background, ink (text and frame) and the picture's colour. */
  bg: string;
  ink: string;
  art: string;
  /** The picture: markup in a 40x40 box centred on 0,0 (fill is the picture's colour). */
  picture: string;
  /** Small words at the foot ("skull", "King"). */
  caption?: string;
  /** A small copy of the picture under the corner index (Mau Mau cards carry their symbol). */
  cornerPicture?: boolean;
  /** A band across the top in this colour (Dracula vs Van Helsing's colours). */
  band?: string;
}

export function faceSvg(face: Face, extra = ""): SVGSVGElement {
  const parts = [
    `<rect x="1.5" y="1.5" width="${W - 3}" height="${H - 3}" rx="6" fill="${face.bg}" stroke="${face.ink}" stroke-opacity=".55" stroke-width="1.5"/>`,
  ];
  if (face.band) parts.push(`<path d="M1.5 7.5 A6 6 0 0 1 7.5 1.5 H52.5 A6 6 0 0 1 58.5 7.5 V20 H1.5Z" fill="${face.band}"/>`);
  parts.push(`<rect x="5" y="5" width="${W - 10}" height="${H - 10}" rx="4" fill="none" stroke="${face.ink}" stroke-opacity=".18"/>`);
  const artY = face.caption ? 40 : 43;
  parts.push(`<g transform="translate(30 ${artY}) scale(0.78)" fill="${face.art}">${face.picture}</g>`);
  if (face.corner) {
    const size = face.corner.length > 2 ? 10 : 13;
    const corner = `<text x="6" y="${6 + size}" font-size="${size}" font-weight="700" fill="${face.band ? "#fff" : face.ink}">${esc(face.corner)}</text>`;
    parts.push(corner);
    // The same index upside down in the opposite corner, as printed cards have it.
    if (!face.caption) parts.push(`<g transform="rotate(180 ${W / 2} ${H / 2})">${corner}</g>`);
  }
  if (face.cornerPicture) {
    parts.push(`<g transform="translate(11 ${face.corner ? 27 : 12}) scale(0.22)" fill="${face.art}">${face.picture}</g>`);
  }
  if (face.caption) {
    const size = face.caption.length > 11 ? 6.2 : face.caption.length > 8 ? 7.2 : 8.5;
    parts.push(`<text x="30" y="75" font-size="${size}" font-weight="600" text-anchor="middle" fill="${face.ink}">${esc(face.caption)}</text>`);
  }
  return svgRoot(face.label, `pc card-face ${extra}`.trim(), W, H, parts.join(""));
}

// --- backs ---------------------------------------------------------------------------------------

const BACKS: Record<string, [string, string]> = {
  "vampire-queen": ["#5b1020", "#e8b64c"],
  "sleeping-queens": ["#24306e", "#f2d16b"],
  "mau-mau-vampires": ["#17352a", "#c8e06b"],
  "dracula-vs-van-helsing": ["#2a2433", "#d9c28a"],
  queen: ["#3b2a6b", "#f7d9ff"],
};

function backMarkup(x: number, y: number, game: string): string {
  const [bg, ink] = BACKS[game] ?? ["#2b1d3a", "#e8b64c"];
  const lattice = [0, 1, 2, 3, 4, 5].map((i) => `M${x + 6 + i * 10} ${y + 6} L${x + 6} ${y + 6 + i * 10}`).join(" ");
  const lattice2 = [0, 1, 2, 3, 4, 5].map((i) => `M${x + 54 - i * 10} ${y + 78} L${x + 54} ${y + 78 - i * 10}`).join(" ");
  const motif = game === "queen"
    ? `<text x="${x + 30}" y="${y + 47}" font-size="15" font-weight="700" text-anchor="middle" fill="${ink}">z Z</text>`
    : `<g transform="translate(${x + 30} ${y + 42}) scale(0.55)" fill="${ink}">${ICONS.bat()}</g>`;
  return `<rect x="${x + 1.5}" y="${y + 1.5}" width="${W - 3}" height="${H - 3}" rx="6" fill="${bg}" stroke="#000" stroke-opacity=".4" stroke-width="1.5"/>` +
    `<rect x="${x + 6}" y="${y + 6}" width="48" height="72" rx="3" fill="none" stroke="${ink}" stroke-opacity=".7"/>` +
    `<path d="${lattice} ${lattice2}" stroke="${ink}" stroke-opacity=".25" stroke-width="1"/>` +
    `<circle cx="${x + 30}" cy="${y + 42}" r="14" fill="${bg}" stroke="${ink}" stroke-width="1.2"/>` + motif;
}

/** One face-down card. */
export function backSvg(game: string, label = "a face-down card", extra = ""): SVGSVGElement {
  return svgRoot(label, `pc card-back ${extra}`.trim(), W, H, backMarkup(0, 0, game));
}

/** A pile of face-down cards as one picture: a few backs offset, and the count on top. */
export function stackSvg(game: string, count: number, label: string, extra = ""): SVGSVGElement {
  const drawn = Math.max(1, Math.min(count, 6));
  const step = 5;
  const width = W + (drawn - 1) * step;
  const parts: string[] = [];
  if (count === 0) {
    parts.push(`<rect x="1.5" y="1.5" width="${W - 3}" height="${H - 3}" rx="6" fill="none" stroke="#fff" stroke-opacity=".45" stroke-dasharray="4 3"/>`);
  } else {
    for (let i = 0; i < drawn; i++) parts.push(backMarkup(i * step, 0, game));
  }
  parts.push(`<circle cx="${width - 13}" cy="${H - 13}" r="11" fill="#fff" stroke="#000" stroke-opacity=".5"/>` +
    `<text x="${width - 13}" y="${H - 8.5}" font-size="${count > 99 ? 9 : 13}" font-weight="700" text-anchor="middle" fill="#111">${count}</text>`);
  return svgRoot(label, `pc card-stack ${extra}`.trim(), width, H, parts.join(""));
}

// --- pictures (40x40, centred on 0,0) ------------------------------------------------------------

function starPoints(outer: number, inner: number, n = 5, turn = -90): string {
  const points: string[] = [];
  for (let i = 0; i < n * 2; i++) {
    const r = i % 2 ? inner : outer;
    const a = ((turn + (i * 180) / n) * Math.PI) / 180;
    points.push(`${(r * Math.cos(a)).toFixed(1)},${(r * Math.sin(a)).toFixed(1)}`);
  }
  return points.join(" ");
}

function around(n: number, each: (deg: number) => string): string {
  return Array.from({ length: n }, (_, i) => each((360 * i) / n)).join("");
}

const ICONS = {
  crown: () => `<path d="M-15 8 L-17 -10 L-8 -2 L0 -14 L8 -2 L17 -10 L15 8Z"/><rect x="-15" y="10" width="30" height="5" rx="1.5"/>` +
    `<circle cx="-17" cy="-11" r="2.4"/><circle cx="0" cy="-15" r="2.4"/><circle cx="17" cy="-11" r="2.4"/>`,
  heart: () => `<path d="M0 15 C-25 -1 -13 -20 0 -7 C13 -20 25 -1 0 15Z"/>`,
  star: () => `<polygon points="${starPoints(18, 7.5)}"/>`,
  moon: () => `<path d="M8 -16 A16 16 0 0 0 8 16 A20 20 0 0 1 8 -16Z"/>`,
  sun: () => `<circle r="8"/>` + around(8, (d) => `<rect x="-1.5" y="-17" width="3" height="6" rx="1" transform="rotate(${d})"/>`),
  drop: () => `<path d="M0 -17 C7 -6 12 0 12 6 A12 12 0 0 1 -12 6 C-12 0 -7 -6 0 -17Z"/>`,
  skull: (bg: string) => `<path d="M-13 -3 A13 13 0 1 1 13 -3 C13 3 10 5 8 6 V13 H-8 V6 C-10 5 -13 3 -13 -3Z"/>` +
    `<circle cx="-5.5" cy="-2" r="4" fill="${bg}"/><circle cx="5.5" cy="-2" r="4" fill="${bg}"/><path d="M0 3 L-2.5 7 H2.5Z" fill="${bg}"/>` +
    `<path d="M-4 9 V13 M0 9 V13 M4 9 V13" stroke="${bg}" stroke-width="1.2"/>`,
  bat: () => `<path d="M0 -3 C-2 -7 -5 -8 -7 -4 C-10 -9 -16 -9 -20 -3 C-16 -3 -14 0 -13 3 C-11 0 -8 1 -7 4 C-5 1 -2 2 0 6 C2 2 5 1 7 4 C8 1 11 0 13 3 C14 0 16 -3 20 -3 C16 -9 10 -9 7 -4 C5 -8 2 -7 0 -3Z"/>` +
    `<path d="M-3 -4 L-3.5 -9 L-1 -5Z M3 -4 L3.5 -9 L1 -5Z"/>`,
  cross: () => `<path d="M-3 -17 H3 V-8 H11 V-2 H3 V17 H-3 V-2 H-11 V-8 H-3Z"/>`,
  coffin: (bg: string) => `<path d="M-6 -17 H6 L12 -6 L7 17 H-7 L-12 -6Z"/><path d="M-1.2 -8 h2.4 v4 h4 v2.4 h-4 v9 h-2.4 v-9 h-4 v-2.4 h4z" fill="${bg}"/>`,
  spider: () => `<circle cy="-3" r="5"/><circle cy="7" r="7"/><path d="M0 -8 V-18" stroke-width="1" stroke="currentColor"/>` +
    `<path d="M-4 3 L-12 -4 L-16 2 M-4 5 L-14 4 L-17 10 M-4 8 L-13 11 L-15 17 M4 3 L12 -4 L16 2 M4 5 L14 4 L17 10 M4 8 L13 11 L15 17" fill="none" stroke="currentColor" stroke-width="2"/>`,
  tombstone: (bg: string) => `<path d="M-11 12 V-5 A11 11 0 0 1 11 -5 V12Z"/><rect x="-15" y="12" width="30" height="5" rx="1.5"/>` +
    `<path d="M-1.5 -10 h3 v4 h4 v3 h-4 v8 h-3 v-8 h-4 v-3 h4z" fill="${bg}"/>`,
  stake: () => `<path d="M-4 -17 H4 V5 L0 17 L-4 5Z"/><rect x="-9" y="-11" width="18" height="4" rx="1"/>`,
  garlic: (bg: string) => `<path d="M0 -17 C2 -12 3 -10 6 -8 C14 -4 14 10 6 14 C3 16 -3 16 -6 14 C-14 10 -14 -4 -6 -8 C-3 -10 -2 -12 0 -17Z"/>` +
    `<path d="M0 -6 C-5 0 -5 8 0 15 M0 -6 C5 0 5 8 0 15" fill="none" stroke="${bg}" stroke-width="1.5"/>`,
  hourglass: (bg: string) => `<path d="M-11 -17 H11 V-14 H9 C9 -6 3 -3 2 0 C3 3 9 6 9 14 H11 V17 H-11 V14 H-9 C-9 6 -3 3 -2 0 C-3 -3 -9 -6 -9 -14 H-11Z"/>` +
    `<path d="M-4 -9 H4 L0 -4Z M-6 13 H6 L0 8Z" fill="${bg}"/>`,
  candle: () => `<rect x="-6" y="-5" width="12" height="19" rx="1.5"/><path d="M0 -18 C4.5 -13 4.5 -9 0 -7 C-4.5 -9 -4.5 -13 0 -18Z"/><rect x="-11" y="14" width="22" height="3.5" rx="1.5"/>`,
  clock: (bg: string) => `<circle r="16"/><circle r="12.5" fill="${bg}"/>` + around(12, (d) => `<rect x="-0.8" y="-12" width="1.6" height="3" transform="rotate(${d})"/>`) +
    `<path d="M0 -9 V0 L6 4" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/>`,
  wolf: (bg: string) => `<path d="M-13 -17 L-5 -7 H5 L13 -17 L14 -2 L8 7 L3 16 H-3 L-8 7 L-14 -2Z"/>` +
    `<path d="M-8 -1 L-3 1 L-8 2.5Z M8 -1 L3 1 L8 2.5Z" fill="${bg}"/><path d="M-2.5 10 H2.5 L0 13Z" fill="${bg}"/>`,
  sword: () => `<path d="M0 -18 L3 -14 V4 H-3 V-14Z"/><rect x="-10" y="4" width="20" height="3.5" rx="1.5"/><rect x="-1.7" y="7.5" width="3.4" height="7"/><circle cy="16" r="2.8"/>`,
  flask: (bg: string) => `<path d="M-3.5 -17 H3.5 V-7 C11 -4 14 3 12 9 C10 15 5 17 0 17 C-5 17 -10 15 -12 9 C-14 3 -11 -4 -3.5 -7Z"/>` +
    `<circle cx="-4" cy="6" r="2.5" fill="${bg}"/><circle cx="4" cy="10" r="1.8" fill="${bg}"/><circle cx="2" cy="1" r="1.4" fill="${bg}"/>`,
  wand: () => `<path d="M-13 16 L4 -1" stroke="currentColor" stroke-width="3.5" stroke-linecap="round"/><polygon transform="translate(8 -7)" points="${starPoints(10, 4)}"/>`,
  dragon: (bg: string) => `<path d="M-16 12 C-15 -2 -7 -9 3 -9 L6 -17 L9 -9 L16 -6 L12 -2 L17 3 L8 3 C3 3 0 7 -3 13Z"/>` +
    `<circle cx="6" cy="-4" r="1.8" fill="${bg}"/><path d="M-12 6 L-16 -6 L-9 -1 L-9 -10 L-4 -5" fill="none" stroke="currentColor" stroke-width="2"/>`,
  jester: () => `<path d="M-14 10 C-12 0 -16 -8 -17 -12 C-10 -10 -6 -4 -4 2 C-3 -6 -2 -12 0 -16 C2 -12 3 -6 4 2 C6 -4 10 -10 17 -12 C16 -8 12 0 14 10Z"/>` +
    `<rect x="-15" y="10" width="30" height="5" rx="2"/><circle cx="-17" cy="-13" r="3"/><circle cx="0" cy="-17" r="3"/><circle cx="17" cy="-13" r="3"/>`,
  rose: (bg: string) => `<path d="M-1 12 C-2 15 -1 18 0 18" fill="none"/><path d="M-2 10 Q-10 16 -12 12 Q-8 9 -2 12Z"/>` +
    `<circle cy="-2" r="12"/><path d="M-7 -3 C-7 -10 7 -10 7 -3 C7 4 -4 4 -4 -2 C-4 -6 2 -6 2 -2" fill="none" stroke="${bg}" stroke-width="1.8"/>`,
  cake: (bg: string) => `<rect x="-16" y="5" width="32" height="10" rx="2"/><rect x="-12" y="-5" width="24" height="9" rx="2"/>` +
    `<path d="M-16 8 Q-12 11 -8 8 T0 8 T8 8 T16 8" fill="none" stroke="${bg}" stroke-width="1.6"/><rect x="-1.5" y="-14" width="3" height="8"/><path d="M0 -19 C2.5 -16 2.5 -15 0 -14 C-2.5 -15 -2.5 -16 0 -19Z"/>`,
  rainbow: () => [["#e53935", 17], ["#fb8c00", 13.5], ["#fdd835", 10], ["#43a047", 6.5]].map(([c, r]) =>
    `<path d="M${-r} 10 A${r} ${r} 0 0 1 ${r} 10" fill="none" stroke="${c}" stroke-width="3.4"/>`).join(""),
  ladybug: () => `<circle cy="-13" r="5" fill="#111"/><circle cy="2" r="14" fill="#d32f2f"/><path d="M0 -12 V16" stroke="#111" stroke-width="1.6"/>` +
    `<circle cx="-6" cy="-3" r="3" fill="#111"/><circle cx="6" cy="-3" r="3" fill="#111"/><circle cx="-7" cy="8" r="2.6" fill="#111"/><circle cx="7" cy="8" r="2.6" fill="#111"/>`,
  sunflower: () => around(12, (d) => `<ellipse cy="-12" rx="3.6" ry="7" fill="#f9a825" transform="rotate(${d})"/>`) + `<circle r="8" fill="#6d4c41"/>`,
  peacock: () => [-60, -36, -12, 12, 36, 60].map((d) =>
    `<g transform="rotate(${d} 0 14)"><path d="M0 14 V-10" stroke="#2e7d32" stroke-width="1.5"/><ellipse cy="-11" rx="4.5" ry="6" fill="#00897b"/><circle cy="-11" r="2.2" fill="#1a237e"/></g>`).join("") +
    `<ellipse cy="10" rx="4" ry="7" fill="#1565c0"/><circle cy="1" r="3" fill="#1565c0"/>`,
  cat: (bg: string) => `<path d="M-13 -15 L-6 -7 C-2 -8 2 -8 6 -7 L13 -15 L13 2 C13 10 7 14 0 14 C-7 14 -13 10 -13 2Z"/>` +
    `<ellipse cx="-5" cy="0" rx="2" ry="3" fill="${bg}"/><ellipse cx="5" cy="0" rx="2" ry="3" fill="${bg}"/><path d="M-1.5 5 H1.5 L0 7Z" fill="${bg}"/>` +
    `<path d="M-4 7 L-17 5 M-4 8 L-17 10 M4 7 L17 5 M4 8 L17 10" stroke="currentColor" stroke-width="0.9"/>`,
  dog: (bg: string) => `<ellipse cy="2" rx="10" ry="12.5"/><ellipse cx="-11" cy="-1" rx="4.5" ry="9.5" transform="rotate(18 -11 -1)"/>` +
    `<ellipse cx="11" cy="-1" rx="4.5" ry="9.5" transform="rotate(-18 11 -1)"/><circle cx="-4" cy="-1" r="2" fill="${bg}"/><circle cx="4" cy="-1" r="2" fill="${bg}"/>` +
    `<ellipse cy="7" rx="3.5" ry="2.5" fill="${bg}"/>`,
  pancake: (bg: string) => [10, 4, -2].map((y) => `<ellipse cy="${y}" rx="16" ry="4.5" stroke="${bg}" stroke-width="1.2"/>`).join("") +
    `<rect x="-4" y="-9.5" width="8" height="5" rx="1" fill="#fdd835"/><path d="M8 -3 C10 2 9 6 10 10" stroke="#8d4a1c" stroke-width="2" fill="none"/>`,
  eye: (bg: string) => `<path d="M-17 0 C-8 -11 8 -11 17 0 C8 11 -8 11 -17 0Z"/><circle r="6" fill="${bg}"/><circle r="3"/>`,
  swap: () => `<path d="M-14 -5 H11 M6 -10 L11 -5 L6 0 M14 6 H-11 M-6 1 L-11 6 L-6 11" fill="none" stroke="currentColor" stroke-width="2.6" stroke-linecap="round"/>`,
  again: () => `<path d="M10 -9 A13 13 0 1 0 13 3" fill="none" stroke="currentColor" stroke-width="3" stroke-linecap="round"/><path d="M5 -14 L14 -10 L7 -3Z"/>`,
  exchange: () => `<path d="M-5 14 V-11 M-10 -6 L-5 -11 L0 -6 M5 -14 V11 M0 6 L5 11 L10 6" fill="none" stroke="currentColor" stroke-width="2.6" stroke-linecap="round"/>`,
  stop: () => `<polygon points="${around(8, (d) => { const a = ((d + 22.5) * Math.PI) / 180; return `${(16 * Math.cos(a)).toFixed(1)},${(16 * Math.sin(a)).toFixed(1)} `; })}"/>` +
    `<rect x="-9" y="-2.5" width="18" height="5" fill="#fff"/>`,
  deckEye: (bg: string) => `<rect x="-11" y="-4" width="22" height="20" rx="2"/><rect x="-8" y="-1" width="16" height="14" rx="1" fill="${bg}"/>` +
    `<g transform="translate(0 -10) scale(0.6)">${`<path d="M-17 0 C-8 -11 8 -11 17 0 C8 11 -8 11 -17 0Z"/><circle r="6" fill="${bg}"/><circle r="3"/>`}</g>`,
  human: () => `<circle cy="-8" r="6"/><path d="M-10 14 C-10 2 -6 -1 0 -1 C6 -1 10 2 10 14Z"/>`,
  vampire: (bg: string) => `<circle cy="-8" r="6"/><path d="M-14 14 L-10 0 L-4 -2 H4 L10 0 L14 14Z"/><path d="M-2.5 -6 L-1.5 -3 L-0.5 -6 M0.5 -6 L1.5 -3 L2.5 -6" fill="${bg}"/>`,
  stakes: () => `<g transform="rotate(-30)"><path d="M-3.5 -17 H3.5 V6 L0 16 L-3.5 6Z"/></g><g transform="rotate(30)"><path d="M-3.5 -17 H3.5 V6 L0 16 L-3.5 6Z"/></g>`,
  fangs: () => `<path d="M-14 -6 C-8 -12 8 -12 14 -6 C8 -8 -8 -8 -14 -6Z"/><path d="M-8 -7.5 L-5 4 L-2.5 -8 M2.5 -8 L5 4 L8 -7.5Z"/>`,
} satisfies Record<string, (bg: string) => string>;

type Icon = keyof typeof ICONS;

function picture(icon: Icon, bg: string, colour?: string): string {
  const markup = ICONS[icon](bg);
  return colour ? markup.replaceAll("currentColor", colour) : markup;
}

// --- Vampire Queen (VQ-1: 1-13, 14 a queen, 15 and 20 the Hunters) -----------------------------

export const VQ_QUEEN = 14;

/** ``7``, ``queen``, ``15 Hunter``: the words of labels.py (VQ-1). */
export function vqLabel(value: number): string {
  if (value === VQ_QUEEN) return "queen";
  if (value === 15 || value === 20) return `${value} Hunter`;
  return String(value);
}

export function vqFace(value: number): Face {
  if (value === VQ_QUEEN) {
    return {
      label: vqLabel(value), corner: "Q", bg: "#fde7ec", ink: "#7a0d25", art: "#b3123a",
      picture: `<g transform="translate(0 -6) scale(0.75)">${picture("crown", "#fde7ec")}</g><g transform="translate(0 12) scale(0.7)">${picture("fangs", "#fde7ec")}</g>`,
      caption: "Queen",
    };
  }
  if (value === 15 || value === 20) {
    return {
      label: vqLabel(value), corner: `H${value}`, bg: "#1f3b36", ink: "#e9f5ee", art: "#c9a15a",
      picture: picture("stakes", "#1f3b36"), caption: `Hunter ${value}`,
    };
  }
  // Number cards: the number large over a faint bat; darker ink for the higher cards.
  const ink = value > 9 ? "#4a1027" : value > 5 ? "#3b1e4d" : "#1f2a44";
  return {
    label: vqLabel(value), corner: String(value), bg: "#fffaf0", ink, art: ink,
    picture: `<g opacity=".13" transform="scale(1.4)">${picture("bat", "#fffaf0")}</g>` +
      `<text y="9" font-size="${value > 9 ? 24 : 28}" font-weight="800" text-anchor="middle">${value}</text>`,
  };
}

// --- Sleeping Queens (SQ-1, SQ-2) --------------------------------------------------------------

const SQ_POWER: Record<number, [string, Icon, string, string]> = {
  11: ["King", "crown", "#fff3d6", "#c77800"],
  12: ["Jester", "jester", "#fde9f3", "#b0306d"],
  13: ["Knight", "sword", "#e6edf6", "#35507a"],
  14: ["Sleeping Potion", "flask", "#efe5fb", "#6a2fb0"],
  15: ["Wand", "wand", "#e2f5f3", "#11806f"],
  16: ["Dragon", "dragon", "#e5f4e2", "#2e7d32"],
};

/** ``King``, ``Sleeping Potion``, ``7``: card_name() of the server. */
export function sqCardLabel(card: number): string {
  return SQ_POWER[card]?.[0] ?? String(card);
}

export function sqCardFace(card: number): Face {
  const power = SQ_POWER[card];
  if (power) {
    const [name, icon, bg, art] = power;
    return { label: name, corner: "", bg, ink: art, art, picture: picture(icon, bg, art), caption: name };
  }
  return {
    label: String(card), corner: String(card), bg: "#fffbea", ink: "#5a3b00", art: "#e8a317",
    picture: `<circle r="17"/><text y="9" font-size="25" font-weight="800" text-anchor="middle" fill="#fffbea">${card}</text>`,
  };
}

const QUEENS: [string, number, Icon, string][] = [
  ["", 0, "crown", "#fff"],
  ["Rose", 5, "rose", "#d81b60"],
  ["Cake", 5, "cake", "#ef6c9c"],
  ["Rainbow", 5, "rainbow", "#5e35b1"],
  ["Starfish", 5, "star", "#f57c00"],
  ["Ladybug", 10, "ladybug", "#c62828"],
  ["Moon", 10, "moon", "#3949ab"],
  ["Sunflower", 10, "sunflower", "#f9a825"],
  ["Peacock", 10, "peacock", "#00897b"],
  ["Cat", 15, "cat", "#6d4c41"],
  ["Dog", 15, "dog", "#8d6e63"],
  ["Pancake", 15, "pancake", "#c68a3a"],
  ["Heart", 20, "heart", "#e53935"],
];

/** ``Cat Queen``: queen_name() of the server (``queen`` for one not known). */
export function sqQueenLabel(queen: number): string {
  const name = QUEENS[queen]?.[0];
  return name ? `${name} Queen` : "queen";
}

export function sqQueenPoints(queen: number): number {
  return QUEENS[queen]?.[1] ?? 0;
}

export function sqQueenFace(queen: number): Face {
  const [name, points, icon, art] = QUEENS[queen] ?? QUEENS[0];
  const bg = "#fff6fb";
  return {
    label: sqQueenLabel(queen), corner: String(points), bg, ink: "#6a1b4d", art,
    picture: `<g transform="translate(0 3) scale(0.9)">${picture(icon, bg, art)}</g><g transform="translate(0 -17) scale(0.32)" fill="#d4a017">${ICONS.crown()}</g>`,
    caption: name,
  };
}

// --- Mau Mau Vampires (MM-1, MM-2; symbols named in the view, MM-4) ----------------------------

const MM_COLOURS: Record<number, [string, string, string]> = {
  1: ["red", "#c62828", "R"],
  2: ["blue", "#1e56b0", "B"],
  3: ["green", "#2e7d32", "G"],
  4: ["purple", "#6a1b9a", "P"],
};
/** Pictures of S1 .. S11 in the data file's order (skull, coffin, spider, ...); a symbol past
 * them (another data file) shows its number. */
const MM_SYMBOLS: Icon[] = ["skull", "coffin", "spider", "tombstone", "stake", "cross", "bat", "garlic", "drop", "hourglass", "candle"];
const CARD_KIND_MAU_MAU = 1;
const CARD_KIND_CLOCK = 2;
const CARD_KIND_WEREWOLF = 3;

export function mmColourName(colour: number): string {
  return MM_COLOURS[colour]?.[0] ?? "no colour";
}

export function mmColourHex(colour: number): string {
  return MM_COLOURS[colour]?.[1] ?? "#777";
}

export function mmSymbolName(symbol: number, symbols: readonly string[]): string {
  return symbols[symbol - 1] ?? `S${symbol}`;
}

/** ``red skull``, ``Clock``, ``Werewolf``: card_text() of the server, without its article. */
export function mmLabel(card: MauMauVampires_Card, symbols: readonly string[]): string {
  if (card.kind === CARD_KIND_MAU_MAU) return `${mmColourName(card.colour)} ${mmSymbolName(card.symbol, symbols)}`;
  if (card.kind === CARD_KIND_CLOCK) return "Clock";
  if (card.kind === CARD_KIND_WEREWOLF) return "Werewolf";
  return "a card";
}

export function mmFace(card: MauMauVampires_Card, symbols: readonly string[]): Face {
  if (card.kind === CARD_KIND_CLOCK) {
    return { label: "Clock", corner: "", bg: "#1c2541", ink: "#f1e9c9", art: "#f1e9c9", picture: picture("clock", "#1c2541", "#f1e9c9"), caption: "Clock" };
  }
  if (card.kind === CARD_KIND_WEREWOLF) {
    return {
      label: "Werewolf", corner: "", bg: "#4e4237", ink: "#f3e6d0", art: "#d9c7a7",
      picture: `<g transform="translate(9 -13) scale(0.45)" fill="#f6e7a1">${ICONS.moon()}</g><g transform="translate(0 3)">${picture("wolf", "#4e4237")}</g>`,
      caption: "Werewolf",
    };
  }
  const [, hex, letter] = MM_COLOURS[card.colour] ?? ["", "#777", "?"];
  const icon = MM_SYMBOLS[card.symbol - 1];
  const name = mmSymbolName(card.symbol, symbols);
  return {
    label: mmLabel(card, symbols), corner: letter, bg: hex, ink: "#fff", art: "#fff",
    picture: icon ? picture(icon, hex, "#fff") : `<text y="9" font-size="24" font-weight="800" text-anchor="middle">${card.symbol}</text>`,
    caption: name, cornerPicture: Boolean(icon),
  };
}

// --- Dracula vs Van Helsing (DV-2; effects DV-10 ... DV-17) --------------------------------------

const DV_COLOURS: Record<number, [string, string, string, string]> = {
  1: ["yellow", "Y", "#e7b416", "#8a6400"],
  2: ["blue", "B", "#2f6fd6", "#1d4a96"],
  3: ["red", "R", "#d23b3b", "#8f1f1f"],
  4: ["purple", "P", "#8a3fc2", "#5b2388"],
};
const DV_EFFECTS: Record<number, [Icon, string]> = {
  1: ["eye", "reveal own"],
  2: ["deckEye", "show deck"],
  3: ["eye", "reveal theirs"],
  4: ["swap", "swap"],
  5: ["again", "again"],
  6: ["exchange", "exchange"],
  7: ["crown", "trump"],
  8: ["stop", "end round"],
};

export function dvColourName(colour: number): string {
  return DV_COLOURS[colour]?.[0] ?? "no colour";
}

export function dvColourHex(colour: number): string {
  return DV_COLOURS[colour]?.[2] ?? "#777";
}

/** ``R7`` in the server's words (card_text); ``??`` for a hidden card. */
export function dvShort(card: DraculaVsVanHelsing_Card | undefined): string {
  return card?.value ? `${DV_COLOURS[card.colour]?.[1] ?? "?"}${card.value}` : "??";
}

/** ``red 7``: what the card is called aloud. */
export function dvLabel(card: DraculaVsVanHelsing_Card): string {
  return `${dvColourName(card.colour)} ${card.value}`;
}

export function dvFace(card: DraculaVsVanHelsing_Card): Face {
  const [, letter, hex, dark] = DV_COLOURS[card.colour] ?? ["", "?", "#777", "#333"];
  const [icon, words] = DV_EFFECTS[card.value] ?? ["eye", ""];
  const bg = "#fbf7ee";
  return {
    label: dvLabel(card), corner: `${letter}${card.value}`, bg, ink: dark, art: dark, band: hex,
    picture: `<text y="6" font-size="30" font-weight="800" text-anchor="middle">${card.value}</text>` +
      `<g transform="translate(0 20) scale(0.42)">${picture(icon, bg, dark)}</g>`,
    caption: words,
  };
}

/** A district (DV-3): its number, its humans and its vampires as 4 tokens. */
export function districtSvg(district: number, humans: number, vampires: number): SVGSVGElement {
  const tokens: string[] = [];
  for (let i = 0; i < 4; i++) {
    const x = 12 + (i % 2) * 20;
    const y = 44 + Math.floor(i / 2) * 20;
    const vampire = i < vampires;
    const empty = !vampire && i >= vampires + humans;
    tokens.push(`<circle cx="${x + 6}" cy="${y}" r="9" fill="${vampire ? "#5a0f1f" : empty ? "none" : "#f4e3c3"}" stroke="${vampire ? "#d23b3b" : "#8a7350"}" stroke-width="1.4"/>` +
      (empty ? "" : `<g transform="translate(${x + 6} ${y + 0.5}) scale(0.4)" fill="${vampire ? "#f2c6cc" : "#6b5535"}">${picture(vampire ? "vampire" : "human", vampire ? "#5a0f1f" : "#f4e3c3")}</g>`));
  }
  const markup = `<rect x="1.5" y="1.5" width="57" height="81" rx="6" fill="#3a3447" stroke="#bfae86" stroke-width="1.2"/>` +
    `<path d="M10 26 L30 8 L50 26 V30 H10Z" fill="#5a5168"/><rect x="25" y="18" width="10" height="12" fill="#bfae86"/>` +
    `<text x="30" y="28" font-size="11" font-weight="700" text-anchor="middle" fill="#3a3447">${district}</text>` + tokens.join("");
  return svgRoot(`district ${district}: ${humans} human${humans === 1 ? "" : "s"}, ${vampires} vampire${vampires === 1 ? "" : "s"}`,
    "pc district", W, H, markup);
}

/** The colour track (DV-4): trump first (with the crown), then the ladder. */
export function trackSvg(track: readonly number[]): SVGSVGElement {
  const chips = track.map((colour, i) => {
    const x = 4 + i * 34 + (i ? 8 : 0);
    return `<rect x="${x}" y="12" width="28" height="28" rx="14" fill="${dvColourHex(colour)}" stroke="#fff" stroke-width="${i ? 1.5 : 3}"/>` +
      `<text x="${x + 14}" y="31" font-size="13" font-weight="700" text-anchor="middle" fill="#fff">${DV_COLOURS[colour]?.[1] ?? "?"}</text>` +
      (i ? "" : `<g transform="translate(${x + 14} 6) scale(0.3)" fill="#f6d55c">${ICONS.crown()}</g>`);
  }).join("");
  const words = track.map((c, i) => `${dvColourName(c)}${i ? "" : " (trump)"}`).join(" > ");
  return svgRoot(`colour track: ${words}`, "track", 4 + track.length * 34 + 12, 44, chips);
}

/** Dracula's HP (DV-3: 12 at the start) as a row of drops. */
export function hpSvg(hp: number, most = 12): SVGSVGElement {
  const drops = Array.from({ length: most }, (_, i) =>
    `<g transform="translate(${8 + i * 13} 16) scale(0.38)" fill="${i < hp ? "#d23b3b" : "none"}" stroke="#f2c6cc" stroke-width="2.5">${ICONS.drop()}</g>`).join("");
  return svgRoot(`Dracula's HP: ${hp} of ${most}`, "hp", 8 + most * 13, 32, drops);
}

/** A colour disc for a wished or called colour (Mau Mau Vampires, MM-14). */
export function colourDisc(colour: number, label: string): SVGSVGElement {
  return svgRoot(label, "disc", 36, 36,
    `<circle cx="18" cy="18" r="15" fill="${mmColourHex(colour)}" stroke="#fff" stroke-width="3"/>` +
    `<text x="18" y="23" font-size="14" font-weight="700" text-anchor="middle" fill="#fff">${MM_COLOURS[colour]?.[2] ?? "?"}</text>`);
}

/** Day or night (MM-12) as a sun or a moon, with the clocks on the Day/Night card. */
export function dayNightSvg(night: boolean, clocks: number): SVGSVGElement {
  const sky = night ? "#1c2541" : "#8fd3ff";
  const body = night ? `<g transform="translate(20 20) scale(0.8)" fill="#f6e7a1">${ICONS.moon()}</g>` : `<g transform="translate(20 20) scale(0.9)" fill="#ffb300">${ICONS.sun()}</g>`;
  const ticks = Array.from({ length: clocks }, (_, i) => `<g transform="translate(${48 + i * 14} 20) scale(0.33)" fill="#fff">${picture("clock", sky, "#fff")}</g>`).join("");
  return svgRoot(`${night ? "night" : "day"}, ${clocks} clock${clocks === 1 ? "" : "s"} on the Day/Night card`, "daynight",
    48 + Math.max(clocks, 1) * 14, 40, `<rect x="1" y="1" width="${46 + Math.max(clocks, 1) * 14}" height="38" rx="8" fill="${sky}"/>${body}${ticks}`);
}
