// Files Vite emits as build assets and imports as their URL (`?url`).
declare module "*?url" {
  const url: string;
  export default url;
}
