/**
 * Whether Go's net.ParseIP takes a text for an address, as the Go plugin
 * checks an annotated `address`: netip.ParseAddr without a zone. IPv4 is
 * four decimal fields of 0 to 255 without leading zeros; IPv6 is up to
 * eight groups of one to four hex digits with at most one `::` that stands
 * for at least one group, and may end in an IPv4 address in its last 32
 * bits.
 */

/** Four decimal fields of 0 to 255, none with a leading zero. */
function isIPv4(text: string): boolean {
  const fields = text.split(".");
  return fields.length === 4 && fields.every((field) => /^(0|[1-9][0-9]{0,2})$/.test(field) && Number(field) <= 255);
}

/** Hex groups with at most one `::`, possibly ending in an IPv4 address; no zone. */
function isIPv6(text: string): boolean {
  if (text.includes("%")) return false;
  let rest = text;
  let groups = 0;
  let ellipsis = false;
  if (rest.startsWith("::")) {
    ellipsis = true;
    rest = rest.slice(2);
    if (rest === "") return true;
  }
  while (groups < 8) {
    const hex = /^[0-9a-fA-F]*/.exec(rest)?.[0] ?? "";
    if (hex.length === 0 || hex.length > 4) return false;
    if (rest[hex.length] === ".") {
      // An IPv4 address takes the last two groups, and must end the text.
      if ((!ellipsis && groups !== 6) || groups + 2 > 8) return false;
      if (!isIPv4(rest)) return false;
      groups += 2;
      rest = "";
      break;
    }
    groups++;
    rest = rest.slice(hex.length);
    if (rest === "") break;
    if (rest[0] !== ":" || rest.length === 1) return false;
    rest = rest.slice(1);
    if (rest[0] === ":") {
      if (ellipsis) return false;
      ellipsis = true;
      rest = rest.slice(1);
      if (rest === "") break;
    }
  }
  if (rest !== "") return false;
  // `::` must stand for at least one group of zeros.
  return ellipsis ? groups < 8 : groups === 8;
}

/** True where Go's net.ParseIP(text) is not nil. */
export function isGoIP(text: string): boolean {
  for (const char of text) {
    if (char === ".") return isIPv4(text);
    if (char === ":") return isIPv6(text);
    if (char === "%") return false;
  }
  return false;
}
