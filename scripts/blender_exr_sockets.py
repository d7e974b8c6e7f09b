# Which planes of an OpenEXR image Blender's compositor offers: loads the image into an Image
# node and prints the node's outputs (name and socket type), one per line. Not part of the
# tests (Blender is too heavy for CI); run by hand, headless:
#
#   blender -b --factory-startup -P scripts/blender_exr_sockets.py -- frame.exr
#
# A splat-render fluid frame gives Combined, Alpha, Depth, N, count and thickness
# (docs/RENDER.md, "Output").
import sys

import bpy

path = sys.argv[sys.argv.index("--") + 1]
scene = bpy.context.scene
scene.use_nodes = True
node = scene.node_tree.nodes.new("CompositorNodeImage")
node.image = bpy.data.images.load(path)
for socket in node.outputs:
    if socket.enabled:
        print(f"{socket.name}\t{socket.type}")
