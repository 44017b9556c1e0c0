// picomatch/posix is the platform-free entry (the default one asks `process` which OS it runs on).
declare module "picomatch/posix" {
  import picomatch from "picomatch";
  export default picomatch;
}
