// The element tests run under web-test-runner's Mocha, whose describe/it/afterEach are globals.
/// <reference types="mocha" />
