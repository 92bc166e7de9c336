declare module 'async-exit-hook' {
  interface ExitHook {
    (hook: (done: () => void) => void): void;
    forceExitTimeout(ms: number): void;
    unhookEvent(event: string): void;
  }
  const exitHook: ExitHook;
  export default exitHook;
}
