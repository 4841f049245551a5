/**
 * Whether go-yaml v2 takes an unquoted scalar for a timestamp. Its encoder
 * quotes such text (`"2026-01-15"`) so that it reads back as text. It tries
 * four layouts with Go's time.Parse: `2006-1-2T15:4:5.999999999Z07:00`, the
 * same with a lower-case `t`, `2006-1-2 15:4:5.999999999` and `2006-1-2`.
 * This is that check, with time.Parse's rules for these layouts: one or two
 * digits for month, day, hour, minute and second, ranges checked (the day
 * against its month, leap years included), any number of fraction digits
 * after `.` or `,`, a zone of `Z` or `±hh:mm`, and nothing left over.
 */

type Field = "year" | "month" | "day" | "hour" | "minute" | "second" | "fraction" | "zone";
type Step = Field | { readonly literal: string };

const DATE: readonly Step[] = ["year", { literal: "-" }, "month", { literal: "-" }, "day"];
const CLOCK: readonly Step[] = ["hour", { literal: ":" }, "minute", { literal: ":" }, "second", "fraction"];
const LAYOUTS: readonly (readonly Step[])[] = [
  [...DATE, { literal: "T" }, ...CLOCK, "zone"],
  [...DATE, { literal: "t" }, ...CLOCK, "zone"],
  [...DATE, { literal: " " }, ...CLOCK],
  DATE,
];

const isDigit = (text: string, i: number) => i < text.length && text[i] >= "0" && text[i] <= "9";

/** Go's getnum: one digit, or two when a second follows (exactly two when `fixed`). */
function number(text: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(text, 0)) return undefined;
  if (!isDigit(text, 1)) return fixed ? undefined : [Number(text[0]), text.slice(1)];
  return [Number(text.slice(0, 2)), text.slice(2)];
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const RANGES: Partial<Record<Field, readonly [number, number]>> = {
  month: [1, 12],
  hour: [0, 23],
  minute: [0, 59],
  second: [0, 59],
};

/** What one step leaves of `text`, or undefined where time.Parse fails; `date` collects the year, month and day. */
function step(step: Step, text: string, date: Record<string, number>): string | undefined {
  if (typeof step === "object") {
    // A space in the layout matches one or more spaces of the value.
    if (step.literal === " ") return text.length > 0 && text[0] !== " " ? undefined : text.replace(/^ +/, "");
    return text.startsWith(step.literal) ? text.slice(1) : undefined;
  }
  switch (step) {
    case "year":
      if (!/^\d{4}/.test(text)) return undefined;
      date.year = Number(text.slice(0, 4));
      return text.slice(4);
    case "fraction": {
      if (text.length < 2 || (text[0] !== "." && text[0] !== ",") || !isDigit(text, 1)) return text;
      return text.replace(/^[.,]\d+/, "");
    }
    case "zone": {
      if (text[0] === "Z") return text.slice(1);
      if (text.length < 6 || text[3] !== ":" || (text[0] !== "+" && text[0] !== "-")) return undefined;
      const hours = number(text.slice(1, 3), true);
      const minutes = number(text.slice(4, 6), true);
      if (!hours || !minutes || hours[0] > 24 || minutes[0] > 60) return undefined;
      return text.slice(6);
    }
    default: {
      const parsed = number(text, false);
      if (!parsed) return undefined;
      const range = RANGES[step];
      if (range && (parsed[0] < range[0] || parsed[0] > range[1])) return undefined;
      date[step] = parsed[0];
      return parsed[1];
    }
  }
}

function parses(text: string, layout: readonly Step[]): boolean {
  const date: Record<string, number> = {};
  let rest: string | undefined = text;
  for (const s of layout) {
    rest = step(s, rest, date);
    if (rest === undefined) return false;
  }
  return rest === "" && date.day >= 1 && date.day <= daysIn(date.month, date.year);
}

/** True where go-yaml v2 would read `text`, unquoted, as a timestamp. */
export function isGoYamlTimestamp(text: string): boolean {
  // go-yaml's quick check: all its layouts start with four digits and a dash.
  if (!/^\d{4}-/.test(text)) return false;
  return LAYOUTS.some((layout) => parses(text, layout));
}
