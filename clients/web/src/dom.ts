// A tiny DOM builder: h("div", {class: "x"}, child, "text") -> HTMLElement.
export type Child = Node | string | number | null | undefined | false;

export function h(
  tag: string,
  attrs: Record<string, string | number | boolean | ((e: Event) => void) | undefined> = {},
  ...children: Child[]
): HTMLElement {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(key.replace(/^on/, ""), value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Words from a protobuf enum member name: "COLOUR_RED" -> "red" (prefix given). */
export function enumWords(names: Record<number, string>, value: number, prefix: string): string {
  const name = names[value] ?? String(value);
  return name.replace(prefix, "").replace(/_/g, " ").toLowerCase();
}
