/**
 * Draws the link graph with sigma (WebGL) and lays it out with ForceAtlas2. Missing pages are
 * diamonds in the warning colour, and so are the links to them. Loaded on demand
 * by LinkGraph.svelte, so the rest of the screen does not wait for the drawing code.
 *
 * The layout (linkGraphLayout.ts) starts from a circle in the API's order and runs in short slices
 * between frames until it has converged: the same data gives the same picture on every load.
 * Big graphs (over 500 nodes) are drawn for speed: edges and labels are left out while the
 * camera moves, labels only for nodes drawn big enough (hubs, or any node once zoomed in), and
 * the hidden picking image (what lies under the pointer) at a quarter of the resolution.
 * Every drawing is measured as User Timing `graph render` (dev tools, the benchmark test).
 */
import Graph from 'graphology';
import Sigma, { DEFAULT_STYLES } from 'sigma';
import { sdfCircle, sdfDiamond } from 'sigma/rendering';
import { layoutOptionsFor, runLayout } from './linkGraphLayout.ts';
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

/** Above this many nodes the drawing trades detail during camera moves for frame rate. */
const BIG_GRAPH = 500;
/** Render timings kept for dev tools before the oldest are dropped. */
const RENDER_MEASURES_KEPT = 1_000;

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
  const big = data.nodes.length > BIG_GRAPH;
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
    settings: {
      gestureTarget: 'graph',
      itemSizesReference: 'screen',
      stagePadding: 60,
      enableNodeDrag: false,
      renderEdgeLabels: false,
      hideEdgesOnMove: big,
      hideLabelsOnMove: big,
      labelDensity: big ? 0.4 : 0.6,
      labelRenderedSizeThreshold: data.nodes.length <= 200 ? 0 : big ? 10 : 7,
      pickingDownSizingRatio: big ? 4 : 2,
    },
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
  let renderStart = 0;
  let renders = 0;
  renderer.on('beforeRender', () => (renderStart = performance.now()));
  renderer.on('afterRender', () => {
    if (++renders % RENDER_MEASURES_KEPT === 0) performance.clearMeasures('graph render');
    performance.measure('graph render', { start: renderStart });
  });

  const layout = runLayout(graph, layoutOptionsFor(graph.order));
  const settled = layout.done.then(() => undefined);

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
      layout.stop();
      renderer.kill();
    },
  };
}
