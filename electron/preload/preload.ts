/**
 * The sandboxed preload (bundled to one CommonJS file: a sandboxed preload
 * cannot require siblings). It exposes exactly the WheelhouseBridge; the page
 * never sees ipcRenderer or webUtils.
 */
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { BRIDGE_GLOBAL } from '../../shared/ipc.js';
import { createBridge } from './bridge.js';

contextBridge.exposeInMainWorld(BRIDGE_GLOBAL, createBridge(ipcRenderer, (file: File) => webUtils.getPathForFile(file)));
