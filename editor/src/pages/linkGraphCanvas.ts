/**
 * Draws the link graph with sigma (WebGL) and lays it out with ForceAtlas2. Missing pages are
 * diamonds in the warning colour, and so are the links to them. Loaded on demand
 * by LinkGraph.svelte, so the rest of the screen does not wait for the drawing code.
 *
 * The layout starts from a circle in the API's order and runs a fixed number of iterations,
 * in short slices between frames so the page stays responsive: the same data gives the same
 * picture on every load. No web worker: the CSP allows scripts from 'self' only, and the
 * library's worker is built from a blob.
 */
import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import Sigma, { DEFAULT_STYLES } from 'sigma';
import { sdfCircle, sdfDiamond } from 'sigma/rendering';
import { circlePositions, type GraphData } from './linkGraphModel.ts';

/** The site's colours (CSS custom properties of the container), so the drawing follows the light or dark theme. */
interface Palette {
  page: string;
  phantom: string;
  edge: string;
  focus: string;
  text: string;
}

function paletteOf(element: HTMLElement): Palette {
  const css = getComputedStyle(element);
  const read = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    page: read('--color-accent', '#1b6480'),
    phantom: read('--color-warning', '#9a5b00'),
    edge: read('--color-muted', '#52606d'),
    focus: read('--color-danger', '#a3241a'),
    text: read('--color-text', '#17212b'),
  };
}

/** More nodes, fewer iterations: the layout's time stays near a second on a laptop. */
function iterationsFor(nodeCount: number): number {
  if (nodeCount <= 300) return 300;
  if (nodeCount <= 1_000) return 150;
  return 80;
}
const ITERATIONS_PER_SLICE = 5;

export interface GraphCanvas {
  /** Shows only these nodes (and the edges between them). */
  show(keys: ReadonlySet<string>): void;
  /** Marks the node and moves the camera to it; null clears the mark. */
  focus(key: string | null): void;
  /** Resolves once the layout has finished. */
  settled: Promise<void>;
  kill(): void;
}

export function drawGraph(container: HTMLElement, data: GraphData, onOpen: (key: string) => void): GraphCanvas {
  const colours = paletteOf(container);
  const graph = new Graph({ type: 'directed', multi: false });
  const positions = circlePositions(data.nodes.length);
  data.nodes.forEach((node, index) => {
    graph.addNode(node.key, {
      ...positions[index],
      label: node.title,
      size: Math.min(16, 5 + Math.sqrt(node.linksIn + node.linksOut) * 2),
      color: node.kind === 'phantom' ? colours.phantom : colours.page,
      shape: node.kind === 'phantom' ? 'diamond' : 'circle',
      focused: false,
    });
  });
  for (const edge of data.edges) {
    if (!graph.hasEdge(edge.source, edge.target)) graph.addEdge(edge.source, edge.target, { color: edge.toPhantom ? colours.phantom : colours.edge });
  }

  const renderer = new Sigma(graph, container, {
    settings: { gestureTarget: 'graph', itemSizesReference: 'screen', stagePadding: 60, labelDensity: 0.6, labelRenderedSizeThreshold: data.nodes.length <= 200 ? 0 : 7, enableNodeDrag: false },
    primitives: {
      nodes: { shapes: [sdfCircle(), sdfDiamond()] },
    },
    styles: {
      nodes: [
        DEFAULT_STYLES.nodes as object,
        { shape: { attribute: 'shape', defaultValue: 'circle' }, labelColor: colours.text },
        { whenData: { focused: true }, then: { color: colours.focus, size: 16, labelVisibility: 'visible' } },
      ],
      edges: [DEFAULT_STYLES.edges as object, { color: { attribute: 'color', defaultValue: colours.edge }, size: 1 }],
    },
  });
  renderer.on('clickNode', ({ node }) => onOpen(node));

  let stopped = false;
  const settled = new Promise<void>((resolve) => {
    let remaining = iterationsFor(data.nodes.length);
    const settings = { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: data.nodes.length > 300 };
    const slice = () => {
      if (stopped) return resolve();
      const iterations = Math.min(ITERATIONS_PER_SLICE, remaining);
      forceAtlas2.assign(graph, { iterations, settings });
      remaining -= iterations;
      if (remaining > 0) setTimeout(slice, 0);
      else resolve();
    };
    if (graph.size === 0) resolve();
    else setTimeout(slice, 0);
  });

  let focused: string | null = null;
  return {
    settled,
    show(keys) {
      graph.forEachNode((key) => renderer.setNodeState(key, { isHidden: !keys.has(key) }));
      graph.forEachEdge((edge, _attributes, source, target) => renderer.setEdgeState(edge, { isHidden: !(keys.has(source) && keys.has(target)) }));
    },
    focus(key) {
      if (focused && graph.hasNode(focused)) graph.setNodeAttribute(focused, 'focused', false);
      focused = key && graph.hasNode(key) ? key : null;
      if (!focused) return;
      graph.setNodeAttribute(focused, 'focused', true);
      const display = renderer.getNodeDisplayData(focused);
      if (display) void renderer.getCamera().animate({ x: display.x, y: display.y, ratio: 0.35 }, { duration: 600 });
    },
    kill() {
      stopped = true;
      renderer.kill();
    },
  };
}
