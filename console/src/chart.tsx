/** A time-series chart (uPlot) of an analytics graph's data points, with the same numbers as a table for screen readers and keyboards. */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface DataPoint {
  timestamp: string;
  [field: string]: unknown;
}

const COLOURS = ['--chart-1', '--chart-2', '--chart-3', '--chart-4', '--chart-5'];

/** The numeric fields of the points: each is one series. */
export function seriesOf(points: DataPoint[]): string[] {
  const names = new Set<string>();
  for (const point of points) {
    for (const [name, value] of Object.entries(point)) if (name !== 'timestamp' && typeof value === 'number') names.add(name);
  }
  return [...names];
}

export function Chart({ title, points, unit }: { title: string; points: DataPoint[]; unit?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const series = seriesOf(points);
  useEffect(() => {
    const element = box.current;
    if (!element || series.length === 0) return;
    const style = getComputedStyle(document.documentElement);
    const colour = (index: number) => style.getPropertyValue(COLOURS[index % COLOURS.length]!).trim() || '#36c';
    const axis = { stroke: style.getPropertyValue('--fg').trim(), grid: { stroke: style.getPropertyValue('--border').trim() } };
    const data: uPlot.AlignedData = [
      points.map((point) => new Date(point.timestamp).getTime() / 1000),
      ...series.map((name) => points.map((point) => (typeof point[name] === 'number' ? (point[name] as number) : null))),
    ];
    const plot = new uPlot({
      width: Math.max(240, element.clientWidth),
      height: 200,
      series: [{}, ...series.map((name, index) => ({ label: unit ? `${name} (${unit})` : name, stroke: colour(index), width: 2, points: { show: points.length < 60 } }))],
      axes: [axis, axis],
      legend: { show: series.length > 1 },
    }, data, element);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(240, element.clientWidth), height: 200 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [points, unit]);
  if (series.length === 0) return <p class="muted">No data for {title.toLowerCase()}.</p>;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} class="chart-box" role="img" aria-label={`${title} over time`} />
      <details>
        <summary>{title} as a table</summary>
        <table class="compact">
          <thead><tr><th scope="col">Time</th>{series.map((name) => <th key={name} scope="col">{name}</th>)}</tr></thead>
          <tbody>
            {points.map((point) => (
              <tr key={point.timestamp}><td>{new Date(point.timestamp).toLocaleString()}</td>{series.map((name) => <td key={name}>{String(point[name] ?? '—')}</td>)}</tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
