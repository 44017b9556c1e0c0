// The worker entries Monaco 0.57 exports, imported with Vite's `?worker` suffix.
declare module "monaco-editor/*?worker" {
  const WorkerConstructor: { new (options?: { name?: string }): Worker };
  export default WorkerConstructor;
}
