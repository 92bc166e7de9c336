/**
 * One ForceAtlas2 step of graphology-layout-forceatlas2 (its own file, shipped without types):
 * linkGraphLayout.ts keeps the node and edge matrices between slices instead of rebuilding them
 * on every call, so the layout's per-node speed survives from one slice to the next.
 */
declare module 'graphology-layout-forceatlas2/iterate.js' {
  import type { ForceAtlas2Settings } from 'graphology-layout-forceatlas2';

  export default function iterate(settings: Required<ForceAtlas2Settings>, nodes: Float32Array, edges: Float32Array): void;
}
