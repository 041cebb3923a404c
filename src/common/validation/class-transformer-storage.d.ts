// class-transformer ships the types of its metadata storage under types/, not beside the module itself.
declare module 'class-transformer/cjs/storage.js' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage.js';
}
