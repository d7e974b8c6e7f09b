# Blender's compositor opens an OpenEXR frame of splat-render: loads it into an Image node,
# prints the node's outputs (name and socket type, one per line), and with an output folder
# renders each named pass through the compositor to a PNG there (Depth mapped from its finite
# range, near bright; N as 0.5 + 0.5 N; count and thickness normalised). Headless:
#
#   blender -b --factory-startup --python-exit-code 1 -P scripts/interop/blender_exr_passes.py \
#       -- frame.exr [OUT_DIR WIDTHxHEIGHT DEPTH_NEAR_M DEPTH_FAR_M PASS...]
#
# Exits 1 (after printing "FAIL ...") when a pass asked for is not among the outputs or its PNG
# is not written. A splat-render fluid frame gives Combined, Alpha, Depth, N, count and
# thickness (docs/RENDER.md, "Output"). scripts/interop-screenshots.sh runs it.
import os
import sys

import bpy

args = sys.argv[sys.argv.index("--") + 1:]
path = args[0]
scene = bpy.context.scene
scene.use_nodes = True
tree = scene.node_tree
for node in list(tree.nodes):
    tree.nodes.remove(node)  # no Render Layers: rendering runs the compositor alone
image = bpy.data.images.load(path)
source = tree.nodes.new("CompositorNodeImage")
source.image = image
outputs = {s.name: s for s in source.outputs if s.enabled}
for name, socket in outputs.items():
    print(f"{name}\t{socket.type}")
if len(args) < 5:
    sys.exit(0)

out_dir, size, near, far, passes = args[1], args[2], float(args[3]), float(args[4]), args[5:]
# (A multilayer image has no size before the compositor reads it: the caller gives it.)
width, height = (int(v) for v in size.split("x"))
scene.render.resolution_x, scene.render.resolution_y = width, height
scene.render.resolution_percentage = 100
scene.render.image_settings.file_format = "PNG"
scene.render.image_settings.color_mode = "RGB"
scene.render.use_compositing = True
scene.render.use_sequencer = False
# The passes are data, not colour: no view transform.
scene.view_settings.view_transform = "Standard"
scene.view_settings.look = "None"
composite = tree.nodes.new("CompositorNodeComposite")
failed = False


def shown(name):
    """The node whose output shows pass `name` as an image."""
    socket = outputs[name]
    if name == "Depth":
        # Finite depths from near (white) to far (black); +inf, where no surface is, black.
        node = tree.nodes.new("CompositorNodeMapRange")
        node.inputs["From Min"].default_value = near
        node.inputs["From Max"].default_value = far
        node.inputs["To Min"].default_value = 1.0
        node.inputs["To Max"].default_value = 0.0
        node.use_clamp = True
        tree.links.new(socket, node.inputs["Value"])
        return node.outputs[0]
    if name == "N":
        # 0.5 + 0.5 N per component, as normal maps show unit normals.
        add = tree.nodes.new("CompositorNodeMixRGB")
        add.blend_type = "ADD"
        add.inputs[0].default_value = 1.0
        add.inputs[2].default_value = (1.0, 1.0, 1.0, 1.0)
        tree.links.new(socket, add.inputs[1])
        half = tree.nodes.new("CompositorNodeMixRGB")
        half.blend_type = "MULTIPLY"
        half.inputs[0].default_value = 1.0
        half.inputs[2].default_value = (0.5, 0.5, 0.5, 1.0)
        tree.links.new(add.outputs[0], half.inputs[1])
        return half.outputs[0]
    node = tree.nodes.new("CompositorNodeNormalize")
    tree.links.new(socket, node.inputs[0])
    return node.outputs[0]


for name in passes:
    if name not in outputs:
        print(f"FAIL Blender's Image node has no pass {name} (it has {', '.join(outputs)})")
        failed = True
        continue
    tree.links.new(shown(name), composite.inputs["Image"])
    scene.render.filepath = os.path.join(os.path.abspath(out_dir), f"blender-{name}.png")
    bpy.ops.render.render(write_still=True)
    if not os.path.isfile(scene.render.filepath) or os.path.getsize(scene.render.filepath) == 0:
        print(f"FAIL Blender wrote no {scene.render.filepath}")
        failed = True
    else:
        print(f"wrote {scene.render.filepath}")
sys.exit(1 if failed else 0)
