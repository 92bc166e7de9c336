/**
 * ForceAtlas2 for the link graph, run on the main thread in short slices (no web worker: the
 * CSP allows scripts from 'self' only, and the library's worker is built from a blob).
 *
 * Why not `forceAtlas2.assign` per slice: it rebuilds its matrices on every call, which resets
 * each node's speed, and writes every position into the graph, which makes sigma re-render the
 * whole drawing after each slice. Here the matrices live for the whole run; a slice iterates
 * until its time budget is spent (at least once), positions go to the graph only every
 * `publishEveryMs` and at the end, and the run stops as soon as the nodes barely move any more
 * (mean step under `CONVERGED` of the drawing's width) or after `maxIterations`.
 * Each slice is measured as User Timing `graph layout slice` (dev tools, the benchmark test).
 */
import type Graph from 'graphology';
import forceAtlas2, { type ForceAtlas2Settings } from 'graphology-layout-forceatlas2';
import iterate from 'graphology-layout-forceatlas2/iterate.js';

const FIELDS_PER_NODE = 10;
const FIELDS_PER_EDGE = 3;
/** Mean step per iteration, as a share of the drawing's width, below which the picture no longer visibly changes. */
const CONVERGED = 0.0015;

const DEFAULTS: Required<ForceAtlas2Settings> = {
  linLogMode: false,
  outboundAttractionDistribution: false,
  adjustSizes: false,
  edgeWeightInfluence: 1,
  scalingRatio: 1,
  strongGravityMode: false,
  gravity: 1,
  slowDown: 1,
  barnesHutOptimize: false,
  barnesHutTheta: 0.5,
};

export interface LayoutOptions {
  maxIterations: number;
  /** Main-thread time one slice may take before it yields to the browser, ms. */
  sliceBudgetMs: number;
  /** How often the drawing shows the layout's progress: every drawing of a big graph costs far more than a slice. */
  publishEveryMs: number;
}

export interface LayoutRun {
  /** Resolves with the number of iterations run once the layout has converged, hit its limit or was stopped. */
  done: Promise<number>;
  stop(): void;
}

/** Fewer iterations for bigger graphs; Barnes-Hut (approximate repulsion) above 500 nodes. */
export function layoutOptionsFor(nodeCount: number): LayoutOptions {
  return {
    maxIterations: nodeCount <= 300 ? 300 : nodeCount <= 1_000 ? 200 : 120,
    sliceBudgetMs: 8,
    publishEveryMs: nodeCount <= 500 ? 100 : 1_000,
  };
}

export function runLayout(graph: Graph, options: LayoutOptions): LayoutRun {
  const settings: Required<ForceAtlas2Settings> = { ...DEFAULTS, ...forceAtlas2.inferSettings(graph), barnesHutOptimize: graph.order > 500 };
  const nodes = new Float32Array(graph.order * FIELDS_PER_NODE);
  const edges = new Float32Array(graph.size * FIELDS_PER_EDGE);
  const offsetOf = new Map<string, number>();
  let offset = 0;
  graph.forEachNode((key, attributes) => {
    offsetOf.set(key, offset);
    nodes.set([attributes.x as number, attributes.y as number, 0, 0, 0, 0, 1, 1, (attributes.size as number) || 1, 0], offset);
    offset += FIELDS_PER_NODE;
  });
  offset = 0;
  graph.forEachEdge((_edge, _attributes, source, target) => {
    const [from, to] = [offsetOf.get(source)!, offsetOf.get(target)!];
    nodes[from + 6] = nodes[from + 6]! + 1; // mass: one more than the degree
    nodes[to + 6] = nodes[to + 6]! + 1;
    edges.set([from, to, 1], offset);
    offset += FIELDS_PER_EDGE;
  });

  const previous = new Float32Array(graph.order * 2);
  /** One iteration; returns the mean step as a share of the drawing's width. */
  const step = (): number => {
    for (let index = 0, node = 0; node < nodes.length; index += 2, node += FIELDS_PER_NODE) {
      previous[index] = nodes[node]!;
      previous[index + 1] = nodes[node + 1]!;
    }
    iterate(settings, nodes, edges);
    let moved = 0;
    let [minX, maxX, minY, maxY] = [Infinity, -Infinity, Infinity, -Infinity];
    for (let index = 0, node = 0; node < nodes.length; index += 2, node += FIELDS_PER_NODE) {
      const [x, y] = [nodes[node]!, nodes[node + 1]!];
      moved += Math.hypot(x - previous[index]!, y - previous[index + 1]!);
      [minX, maxX, minY, maxY] = [Math.min(minX, x), Math.max(maxX, x), Math.min(minY, y), Math.max(maxY, y)];
    }
    return moved / graph.order / Math.max(maxX - minX, maxY - minY, 1e-9);
  };
  const publish = () => {
    let node = 0;
    graph.updateEachNodeAttributes(
      (_key, attributes) => {
        attributes.x = nodes[node]!;
        attributes.y = nodes[node + 1]!;
        node += FIELDS_PER_NODE;
        return attributes;
      },
      { attributes: ['x', 'y'] },
    );
  };

  let stopped = false;
  const done = new Promise<number>((resolve) => {
    if (graph.size === 0) return resolve(0);
    let iterations = 0;
    let publishedAt = performance.now();
    const slice = () => {
      if (stopped) return resolve(iterations);
      const start = performance.now();
      let converged = false;
      do {
        converged = step() < CONVERGED;
        iterations += 1;
      } while (!converged && iterations < options.maxIterations && performance.now() - start < options.sliceBudgetMs);
      performance.measure('graph layout slice', { start });
      const finished = converged || iterations >= options.maxIterations;
      if (finished || performance.now() - publishedAt >= options.publishEveryMs) {
        const publishStart = performance.now();
        publish();
        publishedAt = performance.now();
        performance.measure('graph layout publish', { start: publishStart });
      }
      if (finished) resolve(iterations);
      else setTimeout(slice, 0);
    };
    setTimeout(slice, 0);
  });
  return {
    done,
    stop: () => {
      stopped = true;
    },
  };
}
