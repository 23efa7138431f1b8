import GreenroomPluginKit

/// The plugin's entry point: `greenroom serve --plugin .build/debug/libArticlePlugin.so`.
@_cdecl("greenroom_plugin_init")
public func greenroomPluginInit(api: PluginKit.API, host: PluginKit.HostPointer) -> Int32 {
    PluginKit.register(api, host, plugin: "article", version: "1.0.0", classes: [Article.self])
}
