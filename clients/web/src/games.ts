// How a game's view is drawn, for every game: nothing here knows one. The game's own view
// (View.game) is read by reflection on its protobuf descriptor and laid out by what each field
// is: `hand` is the viewer's cards; a list with one entry per seat, or a list of messages with
// a `seat` field, gives columns of the seat table; other lists of messages go in the middle of
// the table; every other field is a fact. Enum values read as words without their prefix
// (COLOUR_RED -> "red"), a message as its set fields, a message with none set (a card the
// viewer may not see) as "?". Names and options come from ListGameTypes (GameInfo).
import type { DescEnum, DescField, DescMessage } from "@bufbuild/protobuf";
import { isReflectList, isReflectMessage, reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { h, type Child } from "./dom";
import { ViewSchema, type GameType, type View } from "./gen/referee/v1/referee_pb";

/** What the page knows of a game type from ListGameTypes. */
export interface GameInfo {
  name: string;
  /** Option names: fields named so are the table's rules, given at creation, not its state. */
  options: Set<string>;
  /** The whole game type (its rules page, seats, options), for the table's rules link. */
  type?: GameType;
}

export function gameInfo(type: GameType): GameInfo {
  return { name: type.name, options: new Set(type.options.map((o) => o.name)), type };
}

/** What the generic table shows of a game. */
export interface Drawn {
  /** Facts above the table: round, trump, deck size... */
  facts: [string, Child][];
  /** One extra column per seat (name -> value by seat). */
  seatColumns: [string, (seat: number) => Child][];
  /** The middle of the table. */
  centre: Child[];
  /** The viewer's own cards (absent for a spectator, or a game without a hand). */
  hand: Child[] | null;
}

/** Field names shown as the bare value in a message's words ("purple 7", not "value 7"). */
const BARE = new Set(["value", "name", "kind", "colour", "color", "card", "queen", "symbol"]);

function words(name: string): string {
  return name.replace(/_/g, " ");
}

function title(name: string): string {
  const text = words(name);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function enumText(desc: DescEnum, value: number): string {
  const found = desc.values.find((v) => v.number === value);
  if (!found) return String(value);
  // The words every value's name begins with (COLOUR_ of COLOUR_RED, COLOUR_BLUE, ...).
  let prefix = desc.values[0]?.name ?? "";
  for (const v of desc.values) while (!v.name.startsWith(prefix)) prefix = prefix.slice(0, -1);
  prefix = prefix.slice(0, prefix.lastIndexOf("_") + 1);
  return words(found.name.slice(prefix.length).toLowerCase()) || words(found.name.toLowerCase());
}

function scalarText(field: DescField, value: unknown): string {
  if (field.fieldKind === "enum" || (field.fieldKind === "list" && field.listKind === "enum")) {
    return enumText(field.enum, Number(value));
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (value instanceof Uint8Array) return Array.from(value, (b) => b.toString(16).padStart(2, "0")).join("");
  return String(value);
}

/** The field that numbers a message among its list (district, position): its first field,
 * when that is a plain integer other than a seat. */
function keyField(desc: DescMessage): DescField | undefined {
  const first = desc.fields[0];
  if (!first || first.name === "seat" || BARE.has(first.name)) return undefined;
  return isPlainInteger(first) ? first : undefined;
}

function itemText(field: DescField, item: unknown): string {
  return isReflectMessage(item) ? messageText(item) : scalarText(field, item);
}

function fieldWords(message: ReflectMessage, field: DescField): string {
  const value = message.get(field);
  let text: string;
  if (isReflectList(value)) {
    const items = [...value].map((item) => itemText(field, item));
    text = items.join(field.fieldKind === "list" && field.listKind === "message" ? ", " : " ");
  } else if (isReflectMessage(value)) {
    text = messageText(value);
  } else if (field.fieldKind === "scalar" && typeof value === "boolean") {
    return value ? words(field.name) : "";
  } else {
    text = scalarText(field, value);
  }
  return BARE.has(field.name) ? text : `${words(field.name)} ${text}`;
}

/** A message in a few words: its set fields (a key field always), "?" when none is set. */
export function messageText(message: ReflectMessage, skip: Set<string> = new Set()): string {
  const key = keyField(message.desc);
  const set = message.fields.filter((f) => f !== key && !skip.has(f.name) && message.isSet(f));
  if (!key && !set.length && !skip.size) return "?";
  const parts = key && !skip.has(key.name) ? [`${String(message.get(key))}:`] : [];
  for (const field of set) parts.push(fieldWords(message, field));
  if (key && parts.length === 1) parts.push("-");
  return parts.filter(Boolean).join(" ") || "-";
}

// protobuf's FieldDescriptorProto.Type numbers of the integer types, and implicit presence
// (proto3 fields without `optional`).
const INTEGER_SCALARS = new Set([3, 4, 5, 6, 7, 13, 15, 16, 17, 18]);
const IMPLICIT = 2;

function isPlainInteger(field: DescField): boolean {
  return field.fieldKind === "scalar" && field.presence === IMPLICIT && INTEGER_SCALARS.has(field.scalar);
}

function seatKeyed(field: DescField): DescMessage | undefined {
  if (field.fieldKind !== "list" || field.listKind !== "message") return undefined;
  const seat = field.message.fields.find((f) => f.name === "seat");
  return seat && seat.fieldKind === "scalar" ? field.message : undefined;
}

function chip(text: string): HTMLElement {
  return h("span", { class: "card" }, text);
}

export function draw(view: View, info: GameInfo = { name: "", options: new Set() }): Drawn {
  const drawn: Drawn = { facts: [], seatColumns: [], centre: [], hand: null };
  const oneof = ViewSchema.oneofs.find((o) => o.name === "game");
  const root = reflect(ViewSchema, view);
  const selected = oneof ? root.oneofCase(oneof) : undefined;
  if (!selected) return drawn;
  const game = root.get(selected);
  if (!isReflectMessage(game)) return drawn;
  for (const field of game.fields) {
    const value = game.get(field);
    if (info.options.has(field.name) && field.fieldKind !== "list") continue;
    if (field.name === "hand" && isReflectList(value)) {
      if (view.seat !== undefined) drawn.hand = [...value].map((item) => chip(itemText(field, item)));
      continue;
    }
    const keyed = seatKeyed(field);
    if (keyed && isReflectList(value)) {
      const bySeat = new Map<number, ReflectMessage>();
      for (const entry of value) {
        if (isReflectMessage(entry)) bySeat.set(Number(entry.get(keyed.fields.find((f) => f.name === "seat")!)), entry);
      }
      const subFields = keyed.fields.filter((f) => f.name !== "seat");
      if (subFields.length > 3) {
        drawn.seatColumns.push([title(field.name), (s) => {
          const entry = bySeat.get(s);
          return entry ? messageText(entry, new Set(["seat"])) : "";
        }]);
      } else {
        for (const sub of subFields) {
          drawn.seatColumns.push([title(subFields.length > 1 ? sub.name : field.name), (s) => {
            const entry = bySeat.get(s);
            return entry && entry.isSet(sub) ? fieldWords(entry, sub).replace(new RegExp(`^${words(sub.name)} `), "") : "";
          }]);
        }
      }
      continue;
    }
    if (isReflectList(value)) {
      const items = [...value];
      if (!items.length) continue;
      if (field.fieldKind === "list" && field.listKind !== "message" && items.length === view.players) {
        drawn.seatColumns.push([title(field.name), (s) => itemText(field, items[s])]);
      } else if (field.fieldKind === "list" && field.listKind === "message") {
        drawn.centre.push(h("h3", {}, title(field.name)),
          h("ol", { class: "items", "data-field": field.name }, ...items.map((item) => h("li", {}, itemText(field, item)))));
      } else {
        drawn.facts.push([title(field.name), items.map((item) => itemText(field, item)).join(" ")]);
      }
      continue;
    }
    // proto3 leaves zeros out: plain integers are shown at 0 too (seat 0 leads); unset enums,
    // flags, text and messages are not.
    if (!game.isSet(field) && !isPlainInteger(field)) continue;
    drawn.facts.push([title(field.name), isReflectMessage(value) ? messageText(value) : scalarText(field, value)]);
  }
  return drawn;
}
