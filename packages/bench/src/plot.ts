/**
 * A latency distribution as a small SVG: the quantiles of ours and of Go's
 * (see `quantiles`), percentile across, latency up on a log scale so that the
 * median and the tail both show. Written by hand: a few lines and a legend.
 */
const WIDTH = 520;
const HEIGHT = 260;
const LEFT = 60;
const RIGHT = 110;
const TOP = 28;
const BOTTOM = 36;
const COLORS = { ours: "#1f77b4", go: "#d62728" };

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const fmt = (value: number) =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toPrecision(2);

/** Tick values on a log scale between lo and hi: 1, 2, 5 times the powers of ten. */
function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  for (let exp = Math.floor(Math.log10(lo)); exp <= Math.ceil(Math.log10(hi)); exp++) {
    for (const m of [1, 2, 5]) {
      const t = m * 10 ** exp;
      if (t >= lo && t <= hi) ticks.push(t);
    }
  }
  return ticks;
}

/** The SVG text of one distribution plot. */
export function distributionSvg(title: string, unit: string, series: { ours: number[]; go: number[] }): string {
  const values = [...series.ours, ...series.go].filter((v) => v > 0);
  if (values.length === 0) throw new Error(`plot ${title}: no positive samples`);
  const lo = Math.min(...values) * 0.9;
  const hi = Math.max(...values) * 1.1;
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const x = (fraction: number) => LEFT + fraction * plotW;
  const y = (v: number) =>
    TOP + plotH - ((Math.log(Math.max(v, lo)) - Math.log(lo)) / (Math.log(hi) - Math.log(lo))) * plotH;
  const line = (points: number[], color: string) =>
    points.length === 0
      ? ""
      : `<polyline fill="none" stroke="${color}" stroke-width="2" points="${points
          .map((v, i) => `${x(points.length === 1 ? 0 : i / (points.length - 1)).toFixed(1)},${y(v).toFixed(1)}`)
          .join(" ")}"/>`;
  const yTicks = logTicks(lo, hi)
    .map(
      (t) =>
        `<line x1="${LEFT}" x2="${LEFT + plotW}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#ddd"/>` +
        `<text x="${LEFT - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${fmt(t)}</text>`,
    )
    .join("");
  const xTicks = [0, 25, 50, 75, 90, 99]
    .map((p) => `<text x="${x(p / 100).toFixed(1)}" y="${TOP + plotH + 16}" text-anchor="middle">p${p}</text>`)
    .join("");
  // Each side's median and 99th percentile under its name (from the quantiles, p50 and p99 of 101).
  const at = (points: number[], p: number) => points[Math.round((p / 100) * (points.length - 1))];
  const legend = (["ours", "go"] as const)
    .map((side, i) => {
      const y0 = TOP + 10 + i * 46;
      const points = series[side];
      const figures = points.length === 0 ? "" : `p50 ${fmt(at(points, 50)!)}, p99 ${fmt(at(points, 99)!)}`;
      return (
        `<line x1="${WIDTH - RIGHT + 12}" x2="${WIDTH - RIGHT + 36}" y1="${y0}" y2="${y0}" stroke="${COLORS[side]}" stroke-width="2"/>` +
        `<text x="${WIDTH - RIGHT + 42}" y="${y0 + 4}">${side === "ours" ? "nri-ts" : "Go"}</text>` +
        `<text x="${WIDTH - RIGHT + 12}" y="${y0 + 20}" font-size="10">${figures}</text>`
      );
    })
    .join("");
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${LEFT}" y="16" font-size="13">${escapeXml(title)}</text>`,
    yTicks,
    `<rect x="${LEFT}" y="${TOP}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`,
    xTicks,
    `<text x="14" y="${TOP + plotH / 2}" transform="rotate(-90 14 ${TOP + plotH / 2})" text-anchor="middle">${escapeXml(unit)} (log scale)</text>`,
    `<text x="${LEFT + plotW / 2}" y="${HEIGHT - 4}" text-anchor="middle">percentile of calls</text>`,
    line(series.go, COLORS.go),
    line(series.ours, COLORS.ours),
    legend,
    "</svg>",
    "",
  ].join("\n");
}
